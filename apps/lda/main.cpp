// fk-lda: LDA topic models on SDDMM + SpMM. Everything is in the fk_lda library (lda_app.cpp).
#include "apps/common/app_main.hpp"
#include "apps/lda/lda_app.hpp"

int main(int argc, char** argv) {
  return fk::app::run_main("fk-lda", argc, argv, fk::lda::lda_main);
}
