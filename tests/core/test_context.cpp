#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <omp.h>

#include <utility>

#include "core/context.hpp"
#include "core/device_buffer.hpp"
#include "core/error.hpp"
#include "../test_util.hpp"

namespace fk {
namespace {

TEST(Context, ParsesDeviceRequests) {
  EXPECT_EQ(parse_device_request("auto"), DeviceRequest::kAuto);
  EXPECT_EQ(parse_device_request("cpu"), DeviceRequest::kCpu);
  EXPECT_EQ(parse_device_request("gpu"), DeviceRequest::kGpu);
  try {
    parse_device_request("tpu");
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("tpu"), std::string::npos);
  }
}

TEST(Context, AutoFallsBackToCpuWithoutDevice) {
  Context ctx = Context::create(DeviceRequest::kAuto, 1);
  EXPECT_EQ(ctx.is_gpu(), test::gpu_available());
  Context cpu = Context::create(DeviceRequest::kCpu, 2);
  EXPECT_FALSE(cpu.is_gpu());
  EXPECT_EQ(cpu.threads(), 2);
  EXPECT_THROW(cpu.gpu(), Error);
}

// A context asking for OpenMP's default gets it, also after one that set a count (OpenMP's
// setting is the process's: it used to keep the last count).
TEST(Context, DefaultThreadsAreOpenMpsDefaultAfterACount) {
  const int before = Context(DeviceKind::kCpu).threads();
  {
    Context three(DeviceKind::kCpu, 3);
    EXPECT_EQ(omp_get_max_threads(), 3);
  }
  Context plain(DeviceKind::kCpu);
  EXPECT_EQ(plain.threads(), before);
  EXPECT_EQ(omp_get_max_threads(), before);
}

TEST(Context, GpuRequestWithoutDeviceIsClearError) {
  if (test::gpu_available()) GTEST_SKIP() << "a device is present";
  try {
    Context::create(DeviceRequest::kGpu);
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("--device gpu"), std::string::npos) << e.what();
  }
}

TEST(DeviceBuffer, EmptyBufferNeedsNoDevice) {
  DeviceBuffer<float> empty;
  EXPECT_EQ(empty.size(), 0);
  EXPECT_TRUE(empty.to_host().empty());
}

TEST(DeviceBuffer, CsrAndDenseRoundTrip) {
  FK_REQUIRE_GPU();
  HostCsr m;
  m.rows = 3;
  m.cols = 4;
  m.row_ptr = {0, 2, 2, 3};
  m.col_idx = {3, 0, 1};
  m.vals = {1.5f, -2, 7};
  DeviceCsr d(m);
  HostCsr back = d.to_host();
  EXPECT_EQ(back.row_ptr, m.row_ptr);
  EXPECT_EQ(back.col_idx, m.col_idx);
  EXPECT_EQ(back.vals, m.vals);
  HostDense<float> h(5, 3);
  for (std::int64_t i = 0; i < h.size(); ++i) h.data()[i] = float(i) * 0.5f;
  DeviceDense<float> dd(h);
  EXPECT_EQ(dd.to_host().storage(), h.storage());
  DeviceBuffer<float> copy(4);
  copy.upload(h.data(), 4);
  std::vector<float> part(2);
  copy.download(part.data(), 2, 2);
  EXPECT_EQ(part, (std::vector<float>{1.0f, 1.5f}));
  EXPECT_THROW(copy.download(part.data(), 2, 3), Error);
}

// The run scratch of a CPU context (Context::run_scratch): one buffer per slot, kept while requests
// fit, grown when they do not, moved with the context; a slot out of range is an error.
TEST(Context, RunScratchIsOneBufferPerSlot) {
  Context a(DeviceKind::kCpu);
  float* p = a.run_scratch(Context::kGatheredValues, 100);
  EXPECT_EQ(a.run_scratch(Context::kGatheredValues, 40), p);
  float* q = a.run_scratch(Context::kSecondGatheredValues, 100);
  EXPECT_NE(q, p);
  EXPECT_NE(a.run_scratch(Context::kKernelScratch, 100), p);
  EXPECT_NE(a.run_scratch(Context::kKernelScratch, 100), q);
  p[99] = 5.0f;
  EXPECT_EQ(a.run_scratch(Context::kGatheredValues, 100)[99], 5.0f);
  EXPECT_NE(a.run_scratch(Context::kGatheredValues, 1000), nullptr);  // grown (the old contents need not stay)
  p = a.run_scratch(Context::kGatheredValues, 1000);
  Context b(std::move(a));
  EXPECT_EQ(b.run_scratch(Context::kGatheredValues, 1000), p);
  EXPECT_THROW(b.run_scratch(Context::kRunScratchSlots, 1), Error);
  EXPECT_THROW(b.run_scratch(static_cast<Context::RunScratchSlot>(-1), 1), Error);
}

// CPU math takes subnormal floats as zero once a Context is made (flush_subnormals_on_cpu_threads),
// on the calling thread and on every OpenMP thread: 1e-20 squared (1e-40, a subnormal) is 0, and a
// subnormal input counts as 0. x86 only, where the modes exist.
TEST(Context, CpuMathTakesSubnormalsAsZero) {
#if defined(__x86_64__) || defined(__SSE2__)
  Context ctx(DeviceKind::kCpu, 3);
  volatile float tiny = 1e-20f;
  EXPECT_EQ(tiny * tiny, 0.0f);
  volatile float subnormal = 0;
  const std::uint32_t bits = 1;  // the smallest subnormal float
  std::memcpy(const_cast<float*>(&subnormal), &bits, sizeof bits);
  EXPECT_EQ(subnormal * 2.0f, 0.0f);
  int nonzero = 0;
#pragma omp parallel reduction(+ : nonzero) num_threads(3)
  nonzero += tiny * tiny != 0.0f;
  EXPECT_EQ(nonzero, 0);
#else
  GTEST_SKIP() << "flush-to-zero is set on x86 only";
#endif
}

}  // namespace
}  // namespace fk
