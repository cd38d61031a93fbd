#pragma once
// A launch script (bash, sbatch) as far as a launch needs reading: its variables (NAME=value,
// export, arrays NAME=( ... )) expanded the way bash expands them ($NAME, ${NAME:-default},
// ${NAME[@]}, $((arithmetic))), line continuations, comments, heredocs (`cat > ds_config.json
// <<'EOF'`), and its simple commands as words. Not a shell: no control flow is followed (every
// command is listed in file order) and no command is run; `$(...)` and what the script does not set
// stay as written ("$NUM_NODES"), so a reader can tell an unknown value from a real one.

#include <map>
#include <string>
#include <vector>

namespace preflight {

struct ShellCommand {
  std::vector<std::string> words;
  int line = 0;  // where it starts
};

struct ShellScript {
  std::vector<ShellCommand> commands;
  std::map<std::string, std::string> heredocs;  // file written -> its text
  std::map<std::string, std::string> variables;
};

// `environment`: what the scheduler sets before the script runs (SLURM_NNODES, ...).
ShellScript parse_shell(const std::string& text, const std::string& file, const std::map<std::string, std::string>& environment);

// The text after "#SBATCH" of every directive line before the first command (sbatch reads no
// further), split into words.
std::vector<std::string> sbatch_directives(const std::string& text);

// Whether a word holds something the script left unset ("$NUM_NODES", "$(nproc)").
inline bool unresolved(const std::string& word) { return word.find('$') != std::string::npos || word.find('`') != std::string::npos; }

}  // namespace preflight
