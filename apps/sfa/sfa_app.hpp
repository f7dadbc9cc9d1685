#pragma once
// fk-sfa's entry point as a function, so tests can run the whole app in-process.
namespace fk::sfa {

// `fk-sfa [options]` trains; `fk-sfa recommend --model DIR --users ID,...` lists the top-N unrated
// items of users; `fk-sfa similar --model DIR --item ID` the items closest to an item. Returns the
// exit status; throws what app::run_main turns into the error line.
int sfa_main(int argc, char** argv);

}  // namespace fk::sfa
