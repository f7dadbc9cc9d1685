// fk-sfa: sparse factor analysis on SDDMM + SpMM. Everything is in the fk_sfa library.
#include "apps/common/app_main.hpp"
#include "apps/sfa/sfa_app.hpp"

int main(int argc, char** argv) {
  return fk::app::run_main("fk-sfa", argc, argv, fk::sfa::sfa_main);
}
