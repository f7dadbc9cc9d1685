"""Best case of S·B split into a dense product over S's H most frequent columns and cuSPARSE's
CSR_ALG3 on the rest, on the generated nytimes shape (README.md beside this file). Shares from
column_shares.cpp; ALG3's times from h200-bcde07e/kernel-problems.csv."""
import math

share = {50: 0.139, 100: 0.202, 200: 0.274, 400: 0.351, 800: 0.430, 1600: 0.512, 3200: 0.595,
         6400: 0.682, 12800: 0.774}
alg3_ms = {32: 0.761232, 64: 1.48973, 128: 3.08019, 256: 6.5583, 512: 13.9493}
rows = 300000
for name, rate in (("fp32 FMA peak, 67 TFLOP/s", 67e12), ("3xTF32 at a third of 495 TFLOP/s", 165e12)):
    total = 0.0
    for k, t in alg3_ms.items():
        # The rest's time in proportion to its nonzeros; the dense part at the peak rate.
        ms, h = min(((1 - s) * t + rows * h * k * 2 / rate * 1e3, h) for h, s in share.items())
        total += math.log(t / ms)
        print(f"{name}: K = {k}: best H = {h}, {t / ms:.2f}x ALG3")
    print(f"{name}: sum of log speed-ups over the five problems {total:.2f}")
