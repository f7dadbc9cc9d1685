#pragma once
// fk-lda's entry point as a function, so tests can run the whole app in-process.
namespace fk::lda {

// `fk-lda [options]` trains; `fk-lda infer --model DIR --input FILE` infers θ for new documents.
// Returns the exit status; throws what app::run_main turns into the error line (usage errors as
// app::UsageError, input problems as fk::InputError).
int lda_main(int argc, char** argv);

}  // namespace fk::lda
