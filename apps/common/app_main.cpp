#include "apps/common/app_main.hpp"

#include <boost/program_options/errors.hpp>
#include <exception>
#include <iostream>
#include <new>

#include "apps/common/options.hpp"
#include "apps/common/output.hpp"
#include "apps/common/po_error_text.hpp"
#include "core/error.hpp"
#include "core/io/standard_output.hpp"

namespace fk::app {
namespace {
int fail(const std::string& app, const std::string& message, int status) {
  restore_previous_runs();
  std::cout.flush();
  std::cerr << app << ": error: " << message;
  // A subcommand's help is its own ("fk-als recommend --help").
  const std::string& command = current_command();
  const bool sub =
      command.size() > app.size() && command.compare(0, app.size() + 1, app + " ") == 0;
  if (status == kExitUsage) std::cerr << " (see " << (sub ? command : app) << " --help)";
  std::cerr << std::endl;
  return status;
}
}  // namespace

int run_main(const std::string& app, int argc, char** argv,
             const std::function<int(int, char**)>& body) {
  const io::StandardOutputWatch watch;  // a lost stdout is reported with its own cause
  try {
    const int status = body(argc, argv);
    io::flush_standard_output();
    return status;
  } catch (const UsageError& e) {
    return fail(app, e.what(), kExitUsage);
  } catch (const boost::program_options::error& e) {
    return fail(app, po_error_text(e), kExitUsage);
  } catch (const InputError& e) {
    return fail(app, e.what(), kExitFailure);
  } catch (const Error& e) {
    return fail(app, e.what(), kExitFailure);
  } catch (const std::bad_alloc&) {
    return fail(app, "out of memory", kExitFailure);
  } catch (const std::exception& e) {
    return fail(app, e.what(), kExitFailure);
  } catch (...) {
    return fail(app, "unknown exception", kExitFailure);
  }
}

}  // namespace fk::app
