#pragma once
// The `main` of every app: runs the body and turns every escaping exception into one line
// "APP: error: MESSAGE" on stderr with a documented exit status:
//   0  success (also after --help)
//   1  runtime failure: a bad or missing input file (fk::InputError), a device error, any fk::Error
//   2  usage error: unknown option, bad value, conflicting options (app::UsageError)
#include <functional>
#include <string>

namespace fk::app {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

// body(argc, argv) returns the exit status on success.
int run_main(const std::string& app, int argc, char** argv,
             const std::function<int(int, char**)>& body);

}  // namespace fk::app
