#pragma once
// fk-gap's entry point as a function, so tests can run the whole app in-process.
namespace fk::gap {

// `fk-gap [options]` trains a GaP model. Returns the exit status; throws what app::run_main turns
// into the error line (usage errors as app::UsageError, input problems as fk::InputError).
int gap_main(int argc, char** argv);

}  // namespace fk::gap
