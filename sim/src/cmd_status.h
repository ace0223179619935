// How a coolhand-sim subcommand ends, the one way for all of them
// (cmd_status.cpp): its body's exit status, or, when the body throws, the
// error on stderr as "coolhand-sim: <prefix><what>" and status 1.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <optional>
#include <string>

namespace coolhand::sim {

// Runs `body` and returns its exit status; an exception it throws is
// printed as "coolhand-sim: <prefix><what>" and gives 1. For the commands
// main.cpp runs after parsing.
int run_command(const std::string& prefix, const std::function<int()>& body);

// Makes `body` the callback of `cmd`, run through run_command during
// parsing; its status then ends the parse (CLI::Success for 0, else
// CLI::RuntimeError: CLI11 prints nothing for either and CLI11_PARSE
// returns the status). For the commands of cmd_*.cpp.
void run_in_callback(CLI::App& cmd, std::string prefix, std::function<int()> body);

// Checks the subcommand words of argv before CLI11 parses them: CLI11 takes
// a word that is no subcommand for a stray argument (and `--help` after it
// would print the main help and exit 0), and says only "A subcommand is
// required" for a command of subcommands (`port`) given none. Returns 2
// after printing "coolhand-sim: [COMMAND: ]unknown subcommand 'WORD' (one
// of: ...; see coolhand-sim [COMMAND ]--help)" or "coolhand-sim: COMMAND:
// give a subcommand (one of: ...; ...)", else nullopt.
std::optional<int> refuse_bad_subcommand(const CLI::App& app, int argc, const char* const* argv);

}  // namespace coolhand::sim
