// kernels::exp_ops: within 2 ulp of exp (in double) over float's whole
// range, subnormal results included; a vector lane gives the scalar's bits;
// the edges (NaN, infinities, overflow, underflow, 0) as exp gives them.
#include "litegraph/kernels/exp.hpp"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

using litegraph::kernels::exp_ops;

namespace {

// Sample points: a fine sweep of the range where exp is neither 0 nor inf,
// its ends, and random floats of every magnitude.
std::vector<float> samples() {
    std::vector<float> x;
    for (float v = -106.f; v <= 90.f; v += 0.0137f) x.push_back(v);
    for (float v : {-103.97f, -103.28f, -87.34f, -87.33f, -0.f, 0.f, 1e-30f, -1e-30f, 1e-7f, 88.72f,
                    88.7228f, 88.73f, 0.34657359f, -0.34657359f})
        x.push_back(v);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> wide(-105.f, 90.f);
    for (int i = 0; i < 20000; ++i) x.push_back(wide(rng));
    return x;
}

bool same_bits(float a, float b) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

}  // namespace

TEST_CASE("exp_ops is within 2 ulp of exp over the whole range, subnormals included") {
    int wrong = 0;
    double worst_ulps = 0;
    for (float v : samples()) {
        const float got = exp_ops(v);
        const double want = std::exp(static_cast<double>(v));
        const float want_f = static_cast<float>(want);
        if (std::isinf(want_f) || want_f == 0.f) {  // exp rounds to inf / 0 here
            // At the edges of the range a result one rounding away is fine.
            const bool ok = got == want_f || (want_f == 0.f && got <= 2 * 1.4013e-45f) ||
                            (std::isinf(want_f) && got >= std::numeric_limits<float>::max());
            wrong += !ok;
            continue;
        }
        // One ulp of the result: its exponent's, or a subnormal's.
        const double ulp =
            std::max(std::ldexp(1.0, std::ilogb(want_f) - 23), std::ldexp(1.0, -149));
        const double ulps = std::abs(static_cast<double>(got) - want) / ulp;
        worst_ulps = std::max(worst_ulps, ulps);
        wrong += !(ulps <= 2.0);
    }
    CAPTURE(worst_ulps);
    CHECK(wrong == 0);
    CHECK(worst_ulps <= 2.0);
}

TEST_CASE("exp_ops: NaN, infinities, overflow, underflow and 0 as exp gives them") {
    CHECK(std::isnan(exp_ops(std::numeric_limits<float>::quiet_NaN())));
    CHECK(exp_ops(std::numeric_limits<float>::infinity()) ==
          std::numeric_limits<float>::infinity());
    CHECK(same_bits(exp_ops(-std::numeric_limits<float>::infinity()), 0.f));
    CHECK(exp_ops(89.f) == std::numeric_limits<float>::infinity());
    CHECK(exp_ops(1e30f) == std::numeric_limits<float>::infinity());
    CHECK(same_bits(exp_ops(-105.f), 0.f));
    CHECK(same_bits(exp_ops(-1e30f), 0.f));
    CHECK(exp_ops(0.f) == 1.f);
    CHECK(exp_ops(-0.f) == 1.f);
    CHECK(exp_ops(-100.f) > 0.f);  // a subnormal, not flushed
    CHECK(exp_ops(-100.f) < std::numeric_limits<float>::min());
}

#if !defined(LITEGRAPH_SCALAR_SIMD)
template <class A>
void check_lanes(const char* arch) {
    using V = xsimd::batch<float, A>;
    constexpr std::size_t w = V::size;
    auto x = samples();
    for (float v : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                    -std::numeric_limits<float>::infinity(), 1e30f, -1e30f})
        x.push_back(v);
    while (x.size() % w) x.push_back(0.5f);
    int wrong = 0;
    for (std::size_t i = 0; i < x.size(); i += w) {
        alignas(64) float lanes[w];
        exp_ops(V::load_unaligned(x.data() + i)).store_aligned(lanes);
        for (std::size_t l = 0; l < w; ++l) {
            const float s = exp_ops(x[i + l]);
            wrong += !(same_bits(lanes[l], s) || (std::isnan(lanes[l]) && std::isnan(s)));
        }
    }
    CAPTURE(arch);
    CHECK(wrong == 0);
}

TEST_CASE("exp_ops gives the same bits in every vector lane as in a scalar") {
    check_lanes<litegraph::kernels::simd::default_arch>("default");
#if defined(__AVX2__) && defined(__FMA__)
    check_lanes<xsimd::fma3<xsimd::avx2>>("avx2");
#endif
#if defined(__AVX512F__)
    check_lanes<xsimd::avx512f>("avx512f");
#endif
}
#endif
