#pragma once
// fk-als's entry point as a function, so tests can run the whole app in-process.
namespace fk::als {

// `fk-als [options]` trains; `fk-als recommend --model DIR --users ID,...` lists the top-N unrated
// items of users; `fk-als similar --model DIR --item ID` the items closest to an item. Returns the
// exit status; throws what app::run_main turns into the error line (usage errors as
// app::UsageError, input problems as fk::InputError).
int als_main(int argc, char** argv);

}  // namespace fk::als
