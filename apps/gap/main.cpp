// fk-gap: Gamma-Poisson factorization on SDDMM + SpMM. Everything is in the fk_gap library.
#include "apps/common/app_main.hpp"
#include "apps/gap/gap_app.hpp"

int main(int argc, char** argv) {
  return fk::app::run_main("fk-gap", argc, argv, fk::gap::gap_main);
}
