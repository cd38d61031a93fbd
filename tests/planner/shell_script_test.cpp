// The launch-script reader against what bash itself does with the same text (each expectation is
// bash's own result for the snippet, as `bash -c` prints it), except where preflight deliberately
// keeps an expansion it cannot know or trust as written (unset variables, command substitutions,
// arithmetic past 64 bits: one word, spaces dropped, so it reads as unresolved), and its bounds on
// hostile scripts.

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "planner/import/shell_script.hpp"
#include "simulator/spec/errors.hpp"

namespace preflight {
namespace {

using Words = std::vector<std::string>;

Words first_command(const std::string& text, const std::map<std::string, std::string>& env = {}) {
  const ShellScript s = parse_shell(text, "test.sh", env);
  return s.commands.empty() ? Words{} : s.commands.front().words;
}

TEST(ShellScript, ExpandsVariablesDefaultsAndArithmeticAsBashDoes) {
  const std::string text =
      "GPUS_PER_NODE=8\n"
      "NUM_NODES=${NUM_NODES:-2}\n"
      "WORLD_SIZE=$(($GPUS_PER_NODE*$NUM_NODES))\n"
      "torchrun --nproc_per_node $GPUS_PER_NODE --nnodes ${NUM_NODES} --world $WORLD_SIZE --x $((GPUS_PER_NODE / 2 + 1))\n";
  EXPECT_EQ(first_command(text), (Words{"torchrun", "--nproc_per_node", "8", "--nnodes", "2", "--world", "16", "--x", "5"}));
}

TEST(ShellScript, ArraysAndTheirAppendsExpandToOneWordPerElement) {
  // bash: A=(--a 1 "--b 2"); A+=(--c); echo ${A[@]} -> --a 1 --b 2 --c (unquoted: split again)
  const std::string text =
      "ARGS=(\n"
      "  --a 1   # a comment inside the array\n"
      "  \"--b 2\"\n"
      ")\n"
      "ARGS+=(--c)\n"
      "run ${ARGS[@]} \"${ARGS[@]}\"\n";
  EXPECT_EQ(first_command(text), (Words{"run", "--a", "1", "--b", "2", "--c", "--a", "1", "--b 2", "--c"}));
}

TEST(ShellScript, ContinuationsQuotesAndMultiLineStrings) {
  const std::string text =
      "CMD=\" \\\n"
      "    train.py --lr 1e-4\n"
      "    \"\n"
      "python $CMD 'single $NOT' \"double $CMD\"\n";
  // bash: python train.py --lr 1e-4 'single $NOT' 'double      train.py --lr 1e-4\n    ' (single quotes
  // expand nothing; a double-quoted expansion is one word, its spaces and line break kept).
  EXPECT_EQ(first_command(text), (Words{"python", "train.py", "--lr", "1e-4", "single $NOT", "double      train.py --lr 1e-4\n    "}));
  EXPECT_EQ(first_command("run --a\\\n=1\n"), (Words{"run", "--a=1"}));  // bash: a backslash-newline is removed
}

TEST(ShellScript, HeredocsAreFilesTheScriptWrites) {
  const std::string text =
      "cat > ds_config.json <<'EOF'\n"
      "{\"train_micro_batch_size_per_gpu\": $NOT_EXPANDED}\n"
      "EOF\n"
      "X=3\n"
      "cat <<EOF > b.txt\n"
      "x is $X\n"
      "EOF\n"
      "IFS=' ' read -ra ARGS <<< \"$X\"\n"
      "echo done\n";
  const ShellScript s = parse_shell(text, "test.sh", {});
  ASSERT_EQ(s.heredocs.count("ds_config.json"), 1u);
  EXPECT_EQ(s.heredocs.at("ds_config.json"), "{\"train_micro_batch_size_per_gpu\": $NOT_EXPANDED}\n");
  EXPECT_EQ(s.heredocs.at("b.txt"), "x is 3\n");  // an unquoted delimiter expands
  ASSERT_FALSE(s.commands.empty());
  EXPECT_EQ(s.commands.back().words, (Words{"echo", "done"}));  // a here-string (<<<) has no body
}

TEST(ShellScript, WhatTheScriptLeavesUnsetStaysAsWritten) {
  const Words w = first_command("torchrun --nnodes $SLURM_NNODES --rank $1 --host $(hostname) train.py\n");
  ASSERT_EQ(w.size(), 8u);
  EXPECT_EQ(w[2], "$SLURM_NNODES");
  EXPECT_TRUE(unresolved(w[2]));
  EXPECT_TRUE(unresolved(w[4]));
  EXPECT_TRUE(unresolved(w[6]));
  // ... unless the scheduler's environment gives it.
  EXPECT_EQ(first_command("torchrun --nnodes $SLURM_NNODES\n", {{"SLURM_NNODES", "4"}})[2], "4");
}

// An expansion never closed is text as written (bash: "bad substitution"), however it is cut.
TEST(ShellScript, UnclosedExpansionsStayAsWritten) {
  EXPECT_EQ(first_command("run ${DATA_A\n")[1], "${DATA_A");
  EXPECT_EQ(first_command("run $((1 + \n")[1], "$((1");
  EXPECT_EQ(first_command("run ${A:-${B}\n")[1], "${A:-${B}");
}

// A declaration keyword with nothing after it is a command like any other, not a read past the end
// (found by config_import_fuzzer: "declare -a " then a line break; tests/fuzz/regressions/config_import/).
TEST(ShellScript, ADeclarationKeywordAloneIsNoArray) {
  // The keyword alone declares nothing; the launch after it is the first command.
  EXPECT_EQ(first_command("declare -a \ntorchrun train.py\n"), (Words{"torchrun", "train.py"}));
  EXPECT_EQ(first_command("export \nlocal \n"), Words{});
}

// Arithmetic past 64 bits stays as written and unresolved (bash wraps it to 0 or a negative number,
// which would be read as a node count; a signed overflow here was undefined behaviour): 2^40 x 2^40
// passed the old guard.
TEST(ShellScript, ArithmeticPast64BitsStaysAsWritten) {
  EXPECT_TRUE(unresolved(first_command("run $((1099511627776 * 1099511627776))\n")[1]));
  EXPECT_EQ(first_command("run $((1099511627776 * 1099511627776))\n")[1], "$((1099511627776*1099511627776))");
  EXPECT_EQ(first_command("run $((999999999999999 * 999999999999999 * 99))\n")[1], "$((999999999999999*999999999999999*99))");
  EXPECT_EQ(first_command("A=9223372036854775807\nrun $((A + 1))\n")[1], "$((A+1))");
  EXPECT_EQ(first_command("run $((-(4096 * 1024) + 2))\n")[1], "-4194302");  // in range: evaluated
}

TEST(ShellScript, SbatchDirectivesAreReadAsWords) {
  const std::vector<std::string> d = sbatch_directives("#!/bin/bash\n#SBATCH --nodes=2  # two\n#SBATCH -N 2\n# SBATCH --off\n");
  EXPECT_EQ(d, (std::vector<std::string>{"--nodes=2", "-N", "2"}));
}

// A value that doubles itself stops at a bound instead of growing without one; an unbalanced
// parenthesis or quote reads to the end once, not once per line.
TEST(ShellScript, HostileScriptsStayBounded) {
  std::string doubling = "A=x\n";
  for (int i = 0; i < 40; ++i) doubling += "A=\"$A$A\"\n";
  doubling += "echo $A\n";
  const ShellScript s = parse_shell(doubling, "test.sh", {});
  EXPECT_LE(s.variables.at("A").size(), 70'000u);

  std::string open = "A=(\n";
  for (int i = 0; i < 100'000; ++i) open += "x\n";
  EXPECT_NO_THROW(parse_shell(open, "test.sh", {}));
  std::string quote = "A=\"\n";
  for (int i = 0; i < 100'000; ++i) quote += "x\n";
  // bash stops with "unexpected EOF while looking for matching quote": a bad script, named by line.
  try {
    parse_shell(quote, "test.sh", {});
    ADD_FAILURE() << "an unterminated quote was read";
  } catch (const InputError& e) {
    EXPECT_EQ(e.json_path(), "line 1");
  }
}

}  // namespace
}  // namespace preflight
