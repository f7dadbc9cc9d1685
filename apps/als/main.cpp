// fk-als: ALS recommendation on SDDMM + SpMM. Everything is in the fk_als library (als_app.cpp).
#include "apps/als/als_app.hpp"
#include "apps/common/app_main.hpp"

int main(int argc, char** argv) {
  return fk::app::run_main("fk-als", argc, argv, fk::als::als_main);
}
