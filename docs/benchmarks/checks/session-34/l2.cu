#include <cstdio>
#include <cuda_runtime.h>
// The device's L2 as cudaGetDeviceProperties reports it (what the plans and the rules read).
int main() {
  cudaDeviceProp p;
  if (cudaGetDeviceProperties(&p, 0) != cudaSuccess) return 1;
  printf("%s: l2CacheSize %d bytes (%.1f MiB), persistingL2 max %d, SMs %d, cc %d.%d\n", p.name,
         p.l2CacheSize, p.l2CacheSize / 1048576.0, p.persistingL2CacheMaxSize,
         p.multiProcessorCount, p.major, p.minor);
}
