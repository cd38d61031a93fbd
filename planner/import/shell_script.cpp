#include "planner/import/shell_script.hpp"

#include <cctype>
#include <limits>
#include <optional>
#include <sstream>

#include "simulator/spec/errors.hpp"

namespace preflight {

namespace {

// A value grows past this only by doubling itself (A="$A$A"): it is then left unresolved.
constexpr std::size_t kMaxValueBytes = 64u << 10;
constexpr int kMaxExpansionDepth = 16;

bool name_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string line;
  std::istringstream in(text);
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  return lines;
}

// The line without its comment: a '#' that starts a word, outside quotes.
std::string strip_comment(const std::string& line) {
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote != 0) {
      if (c == quote) quote = 0;
      else if (c == '\\' && quote == '"') ++i;
    } else if (c == '\\') {
      ++i;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#' && (i == 0 || std::isspace(static_cast<unsigned char>(line[i - 1])))) {
      return line.substr(0, i);
    }
  }
  return line;
}

// What a line leaves open for the next: parentheses (an array assignment) and a quote (a string
// over several lines), carried from line to line so each line is scanned once.
struct OpenState {
  int parens = 0;
  char quote = 0;

  void scan(const std::string& line) {
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
        else if (c == '\\' && quote == '"') ++i;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '\\') {
        ++i;
      } else if (c == '(') {
        ++parens;
      } else if (c == ')') {
        --parens;
      }
    }
  }
  bool open() const { return parens > 0 || quote != 0; }
};

class Expander {
 public:
  Expander(std::map<std::string, std::string>& vars, std::map<std::string, std::vector<std::string>>& arrays,
           const std::map<std::string, std::string>& env)
      : vars_(vars), arrays_(arrays), env_(env) {}

  std::optional<std::string> lookup(const std::string& name) const {
    if (const auto it = vars_.find(name); it != vars_.end()) return it->second;
    if (const auto it = arrays_.find(name); it != arrays_.end()) return it->second.empty() ? "" : it->second.front();
    if (const auto it = env_.find(name); it != env_.end()) return it->second;
    return std::nullopt;
  }

  // Expands the `$...` at text[i]; returns the pieces (several for ${A[@]}) and moves i past it.
  std::vector<std::string> expand(const std::string& text, std::size_t& i, int depth) {
    const std::size_t start = i;
    ++i;  // '$'
    if (i >= text.size()) return {"$"};
    if (text.compare(i, 2, "((") == 0) return {arithmetic(text, i, start, depth)};
    if (text[i] == '(') {
      skip_balanced(text, i, '(', ')');
      return {text.substr(start, i - start)};  // command substitution: not run
    }
    if (text[i] == '{') return braced(text, i, start, depth);
    if (name_start(text[i])) {
      std::size_t j = i;
      while (j < text.size() && name_char(text[j])) ++j;
      const std::string name = text.substr(i, j - i);
      i = j;
      const std::optional<std::string> v = lookup(name);
      return {v ? *v : "$" + name};
    }
    // $1, $@, $#, $$: the script's arguments and process: unknown here.
    ++i;
    return {text.substr(start, 2)};
  }

  // A word's text with every expansion done (for values in double quotes and defaults).
  std::string expand_all(const std::string& text, int depth) {
    std::string out;
    for (std::size_t i = 0; i < text.size();) {
      if (text[i] == '$' && depth < kMaxExpansionDepth) {
        const std::vector<std::string> pieces = expand(text, i, depth + 1);
        for (std::size_t p = 0; p < pieces.size(); ++p) out += (p == 0 ? "" : " ") + pieces[p];
      } else {
        out += text[i++];
      }
      if (out.size() > kMaxValueBytes) return "$(too long)";
    }
    return out;
  }

 private:
  // Moves i past the bracket opened at text[i] and its match; false when it is never closed (i at the end).
  static bool skip_balanced(const std::string& text, std::size_t& i, char open, char close) {
    int d = 0;
    for (; i < text.size(); ++i) {
      if (text[i] == open) ++d;
      if (text[i] == close && --d == 0) {
        ++i;
        return true;
      }
    }
    return false;
  }

  std::vector<std::string> braced(const std::string& text, std::size_t& i, std::size_t start, int depth) {
    std::size_t end = i;
    if (!skip_balanced(text, end, '{', '}')) {  // never closed: the rest is as written
      i = text.size();
      return {text.substr(start)};
    }
    const std::string inner = text.substr(i + 1, end - i - 2);
    i = end;
    std::size_t j = 0;
    while (j < inner.size() && name_char(inner[j])) ++j;
    const std::string name = inner.substr(0, j);
    const std::string rest = inner.substr(name.size());
    if (rest == "[@]" || rest == "[*]") {
      if (const auto it = arrays_.find(name); it != arrays_.end()) return it->second;
      if (const std::optional<std::string> v = lookup(name)) return {*v};
      return {text.substr(start, end - start)};
    }
    const std::optional<std::string> v = lookup(name);
    if (rest.empty()) return {v ? *v : "$" + name};
    for (const char* op : {":-", ":=", "-", "="}) {
      if (rest.starts_with(op)) {
        const bool colon = op[0] == ':';
        const bool use_default = !v || (colon && v->empty());
        if (!use_default) return {*v};
        const std::string fallback = expand_all(unquote(rest.substr(colon ? 2 : 1)), depth + 1);
        if (op[std::string(op).size() - 1] == '=') vars_[name] = fallback;
        return {fallback};
      }
    }
    return {text.substr(start, end - start)};  // ${#A}, ${A/x/y}, ...: not followed
  }

  static std::string unquote(const std::string& s) {
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) return s.substr(1, s.size() - 2);
    return s;
  }

  std::string arithmetic(const std::string& text, std::size_t& i, std::size_t start, int depth) {
    std::size_t end = i;
    if (!skip_balanced(text, end, '(', ')')) {
      i = text.size();
      return text.substr(start);
    }
    const std::string inner = text.substr(i + 2, end >= i + 4 ? end - i - 4 : 0);
    i = end;
    const std::string expanded = expand_all(inner, depth + 1);
    std::size_t at = 0;
    const std::optional<long long> v = sum(expanded, at, 0);
    while (at < expanded.size() && std::isspace(static_cast<unsigned char>(expanded[at]))) ++at;
    if (!v || at != expanded.size()) {
      std::string as_written = text.substr(start, end - start);
      std::erase(as_written, ' ');  // one word however it is split later
      return as_written;
    }
    return std::to_string(*v);
  }

  // Bash arithmetic on integers: + - * / % and parentheses; bare names are variables.
  std::optional<long long> sum(const std::string& s, std::size_t& at, int depth) {
    std::optional<long long> v = product(s, at, depth);
    for (;;) {
      skip_space(s, at);
      if (!v || at >= s.size() || (s[at] != '+' && s[at] != '-')) return v;
      const char op = s[at++];
      const std::optional<long long> r = product(s, at, depth);
      if (!r) return std::nullopt;
      long long out = 0;  // past 64 bits the expansion stays as written (bash would wrap)
      if (op == '+' ? __builtin_add_overflow(*v, *r, &out) : __builtin_sub_overflow(*v, *r, &out)) return std::nullopt;
      v = out;
    }
  }

  std::optional<long long> product(const std::string& s, std::size_t& at, int depth) {
    std::optional<long long> v = factor(s, at, depth);
    for (;;) {
      skip_space(s, at);
      if (!v || at >= s.size() || (s[at] != '*' && s[at] != '/' && s[at] != '%')) return v;
      const char op = s[at++];
      const std::optional<long long> r = factor(s, at, depth);
      if (!r || ((op == '/' || op == '%') && *r == 0)) return std::nullopt;
      long long out = 0;
      if (op == '*') {
        if (__builtin_mul_overflow(*v, *r, &out)) return std::nullopt;
      } else {
        if (*r == -1 && *v == std::numeric_limits<long long>::min()) return std::nullopt;  // the one quotient past 64 bits
        out = op == '/' ? *v / *r : *v % *r;
      }
      v = out;
    }
  }

  std::optional<long long> factor(const std::string& s, std::size_t& at, int depth) {
    skip_space(s, at);
    if (at >= s.size() || depth > kMaxExpansionDepth) return std::nullopt;
    if (s[at] == '(') {
      ++at;
      const std::optional<long long> v = sum(s, at, depth + 1);
      skip_space(s, at);
      if (!v || at >= s.size() || s[at] != ')') return std::nullopt;
      ++at;
      return v;
    }
    if (s[at] == '-') {
      ++at;
      const std::optional<long long> v = factor(s, at, depth + 1);
      long long out = 0;
      if (!v || __builtin_sub_overflow(0LL, *v, &out)) return std::nullopt;
      return out;
    }
    if (name_start(s[at])) {
      std::size_t j = at;
      while (j < s.size() && name_char(s[j])) ++j;
      const std::optional<std::string> v = lookup(s.substr(at, j - at));
      at = j;
      if (!v) return std::nullopt;
      std::size_t inner = 0;
      return depth < kMaxExpansionDepth ? sum(*v, inner, depth + 1) : std::nullopt;
    }
    std::size_t j = at;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j == at || j - at > 15) return std::nullopt;
    const long long v = std::stoll(s.substr(at, j - at));
    at = j;
    return v;
  }

  static void skip_space(const std::string& s, std::size_t& at) {
    while (at < s.size() && std::isspace(static_cast<unsigned char>(s[at]))) ++at;
  }

  std::map<std::string, std::string>& vars_;
  std::map<std::string, std::vector<std::string>>& arrays_;
  const std::map<std::string, std::string>& env_;
};

class Parser {
 public:
  Parser(std::string file, const std::map<std::string, std::string>& env) : expander_(script_.variables, arrays_, env), file_(std::move(file)) {}

  ShellScript run(const std::string& text) {
    const std::vector<std::string> lines = split_lines(text);
    for (std::size_t i = 0; i < lines.size(); ++i) {
      const int first = static_cast<int>(i) + 1;
      std::string line = strip_comment(lines[i]);
      OpenState state;
      state.scan(line);
      while ((ends_with_backslash(line) || state.open()) && i + 1 < lines.size()) {
        const bool in_quote = state.quote != 0;
        const bool continued = ends_with_backslash(line);  // bash drops a backslash-newline, in quotes too
        if (continued) line.pop_back();
        // Inside a quote the next line is text: no comment to strip.
        const std::string next = in_quote ? lines[++i] : strip_comment(lines[++i]);
        state.scan(next);
        // A backslash-newline is removed outright (bash: "foo\<newline>bar" is foobar); an open quote
        // keeps the line break; an open array or expansion takes it as a word break.
        line += (continued ? "" : in_quote ? "\n" : " ") + next;
      }
      if (state.quote != 0) unterminated(first);  // bash: "unexpected EOF while looking for matching quote"
      if (const std::optional<Heredoc> h = heredoc(line)) {
        std::string body;
        while (i + 1 < lines.size()) {
          std::string l = lines[++i];
          std::string trimmed = l;
          if (h->strip_tabs) trimmed.erase(0, trimmed.find_first_not_of('\t') == std::string::npos ? trimmed.size() : trimmed.find_first_not_of('\t'));
          if (trimmed == h->delimiter) break;
          body += (h->strip_tabs ? trimmed : l) + "\n";
        }
        if (!h->target.empty()) script_.heredocs[h->target] = h->expand ? expander_.expand_all(body, 0) : body;
        line = line.substr(0, h->at);
      }
      for (const std::string& simple : split_commands(line)) command(simple, first);
    }
    return std::move(script_);
  }

 private:
  struct Heredoc {
    std::size_t at = 0;
    std::string delimiter;
    std::string target;  // the file written (cat > target <<EOF); empty when none
    bool expand = true;
    bool strip_tabs = false;
  };

  static bool ends_with_backslash(const std::string& line) { return !line.empty() && line.back() == '\\'; }

  [[noreturn]] void unterminated(int line) const {
    throw InputError(file_, "line " + std::to_string(line), "a quote that is never closed", "a script bash can read");
  }

  std::optional<Heredoc> heredoc(const std::string& line) const {
    char quote = 0;
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
      const char c = line[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
        continue;
      }
      if (c == '\'' || c == '"') quote = c;
      if (line.compare(i, 3, "$((") == 0) {  // $((1 << 20)): a shift, not a heredoc
        const std::size_t close = line.find("))", i + 3);
        if (close == std::string::npos) return std::nullopt;
        i = close + 1;
        continue;
      }
      if (c != '<' || line[i + 1] != '<') continue;
      if (i + 2 < line.size() && line[i + 2] == '<') {  // <<< a here-string: no body follows
        i += 2;
        continue;
      }
      Heredoc h;
      h.at = i;
      std::size_t j = i + 2;
      if (j < line.size() && line[j] == '-') {
        h.strip_tabs = true;
        ++j;
      }
      while (j < line.size() && line[j] == ' ') ++j;
      std::size_t end = j;
      while (end < line.size() && !std::isspace(static_cast<unsigned char>(line[end])) && line[end] != ';') ++end;
      std::string delimiter = line.substr(j, end - j);
      if (delimiter.find_first_of("'\"") != std::string::npos) h.expand = false;
      std::erase(delimiter, '\'');
      std::erase(delimiter, '"');
      if (delimiter.empty()) return std::nullopt;
      h.delimiter = delimiter;
      // The file it writes: "> file" before or after the heredoc operator, or tee's argument.
      std::string rest = line.substr(0, i) + " " + line.substr(end);
      if (const std::size_t tee = rest.find("tee "); tee != std::string::npos && rest.find('>') == std::string::npos) {
        rest.replace(tee, 4, "> ");
      } else if (tee != std::string::npos) {
        // "tee FILE > /dev/null": the file is tee's, the redirection throws the copy away.
        rest = "> " + rest.substr(tee + 4);
      }
      const std::size_t gt = rest.find('>');
      if (gt != std::string::npos) {
        std::size_t s = rest.find_first_not_of(" >", gt);
        std::size_t e = s == std::string::npos ? s : rest.find_first_of(" ;", s);
        if (s != std::string::npos) {
          std::string target = rest.substr(s, e == std::string::npos ? std::string::npos : e - s);
          std::erase(target, '"');
          std::erase(target, '\'');
          target = expander_copy_expand(target);
          const std::size_t slash = target.find_last_of('/');
          h.target = slash == std::string::npos ? target : target.substr(slash + 1);
        }
      }
      return h;
    }
    return std::nullopt;
  }

  std::string expander_copy_expand(const std::string& s) const { return const_cast<Expander&>(expander_).expand_all(s, 0); }

  // Simple commands of a line: split at ; && || | & outside quotes and substitutions.
  static std::vector<std::string> split_commands(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    char quote = 0;
    int depth = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quote != 0) {
        if (c == quote) quote = 0;
        else if (c == '\\' && quote == '"' && i + 1 < line.size()) cur += line[i++];
        cur += c;
        continue;
      }
      if (c == '\\' && i + 1 < line.size()) {
        cur += c;
        cur += line[++i];
        continue;
      }
      if (c == '\'' || c == '"') quote = c;
      if (c == '(' || c == '{') ++depth;
      if ((c == ')' || c == '}') && depth > 0) --depth;
      if (depth == 0 && (c == ';' || c == '|' || c == '&')) {
        out.push_back(cur);
        cur.clear();
        continue;
      }
      cur += c;
    }
    out.push_back(cur);
    return out;
  }

  // NAME=( ... ): an array, its elements expanded.
  bool array_assignment(const std::string& text) {
    std::size_t i = text.find_first_not_of(" \t");
    if (i == std::string::npos) return false;
    for (const std::string_view keyword : {"export ", "declare -a ", "local ", "readonly "}) {
      if (i == std::string::npos) break;  // a keyword and nothing after it ("declare -a ")
      if (text.compare(i, keyword.size(), keyword) == 0) i = text.find_first_not_of(' ', i + keyword.size());
    }
    if (i == std::string::npos || !name_start(text[i])) return false;
    std::size_t j = i;
    while (j < text.size() && name_char(text[j])) ++j;
    const bool append = text.compare(j, 3, "+=(") == 0;  // NAME+=( ... ) adds to the array
    if (!append && text.compare(j, 2, "=(") != 0) return false;
    const std::size_t open = j + (append ? 3 : 2);
    const std::size_t close = text.rfind(')');
    const std::string body = close == std::string::npos || close < open ? text.substr(open) : text.substr(open, close - open);
    const std::string name = text.substr(i, j - i);
    std::vector<std::string> elements = words(body);
    std::vector<std::string>& array = arrays_[name];
    if (!append) array.clear();
    if (append && array.empty() && script_.variables.contains(name)) array.push_back(script_.variables[name]);
    array.insert(array.end(), elements.begin(), elements.end());
    script_.variables.erase(name);
    return true;
  }

  std::vector<std::string> words(const std::string& text) {
    std::vector<std::string> out;
    std::string cur;
    bool have = false;
    const auto flush = [&] {
      if (have) out.push_back(cur);
      cur.clear();
      have = false;
    };
    for (std::size_t i = 0; i < text.size();) {
      const char c = text[i];
      if (std::isspace(static_cast<unsigned char>(c))) {
        flush();
        ++i;
      } else if (c == '\'') {
        const std::size_t end = text.find('\'', i + 1);
        cur += text.substr(i + 1, end == std::string::npos ? std::string::npos : end - i - 1);
        have = true;
        i = end == std::string::npos ? text.size() : end + 1;
      } else if (c == '"') {
        have = true;
        for (++i; i < text.size() && text[i] != '"';) {
          if (text[i] == '\\' && i + 1 < text.size()) {
            cur += text[i + 1];
            i += 2;
          } else if (text[i] == '$') {
            const std::vector<std::string> pieces = expander_.expand(text, i, 0);
            for (std::size_t p = 0; p < pieces.size(); ++p) {
              if (p > 0) {
                out.push_back(cur);  // "${A[@]}": one word per element
                cur.clear();
              }
              cur += pieces[p];
            }
          } else {
            cur += text[i++];
          }
        }
        ++i;
      } else if (c == '\\' && i + 1 < text.size()) {
        cur += text[i + 1];
        have = true;
        i += 2;
      } else if (c == '$') {
        // Unquoted: the value is split into words.
        const std::vector<std::string> pieces = expander_.expand(text, i, 0);
        for (const std::string& piece : pieces) {
          std::istringstream in(piece);
          std::string w;
          bool first = true;
          while (in >> w) {
            if (!first) flush();
            cur += w;
            have = true;
            first = false;
          }
          if (&piece != &pieces.back()) flush();
        }
      } else {
        cur += c;
        have = true;
        ++i;
      }
      if (cur.size() > kMaxValueBytes) cur = "$(too long)";
    }
    flush();
    return out;
  }

  void command(const std::string& text, int line) {
    if (text.find_first_not_of(" \t") == std::string::npos || array_assignment(text)) return;
    std::vector<std::string> w = words(text);
    std::size_t first = 0;
    if (!w.empty() && (w[0] == "export" || w[0] == "local" || w[0] == "readonly" || w[0] == "declare")) first = 1;
    // Leading NAME=value words are assignments (alone, or for the command after them).
    std::size_t k = first;
    for (; k < w.size(); ++k) {
      const std::size_t eq = w[k].find('=');
      if (eq == std::string::npos || eq == 0 || !name_start(w[k][0])) break;
      const bool append = w[k][eq - 1] == '+';  // NAME+=value
      const std::size_t name_end = append ? eq - 1 : eq;
      bool is_name = name_end > 0;
      for (std::size_t c = 0; c < name_end; ++c) is_name = is_name && name_char(w[k][c]);
      if (!is_name) break;
      const std::string name = w[k].substr(0, name_end);
      std::string value = append && script_.variables.contains(name) ? script_.variables[name] : "";
      value += w[k].substr(eq + 1);
      script_.variables[name] = value.size() > kMaxValueBytes ? "$(too long)" : value;
      arrays_.erase(name);
    }
    if (k < w.size() && first == 0) script_.commands.push_back({std::vector<std::string>(w.begin() + static_cast<std::ptrdiff_t>(k), w.end()), line});
  }

  ShellScript script_;
  std::map<std::string, std::vector<std::string>> arrays_;
  Expander expander_;
  std::string file_;
};

}  // namespace

ShellScript parse_shell(const std::string& text, const std::string& file, const std::map<std::string, std::string>& environment) {
  return Parser(file, environment).run(text);
}

std::vector<std::string> sbatch_directives(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& line : split_lines(text)) {
    // sbatch stops reading directives at the first line that is not a comment or blank.
    const std::size_t first = line.find_first_not_of(" \t");
    if (first != std::string::npos && line[first] != '#') break;
    if (!line.starts_with("#SBATCH")) continue;
    std::istringstream in(strip_comment(line.substr(7)));
    for (std::string w; in >> w;) out.push_back(w);
  }
  return out;
}

}  // namespace preflight
