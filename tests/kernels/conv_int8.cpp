// The desktop fast int8 kernels (kernels/conv_int8_fast.hpp) against the
// reference kernels::conv2d_int8, int32 for int32, on every SIMD path this
// program and CPU have: random geometries (strides, paddings, dilations,
// depthwise, odd sizes, batches, full-range int8 including -128), the
// vector requantize against cortex_m::requantize_run and chain::emit, the
// float-output vector epilogues against chain::emit, the int8 gate and
// residual chains against their float chain then quantize_int8, byte for byte.
#include "geometry.hpp"
#include "litegraph/kernels/conv_int8_fast.hpp"
#include "simd_path.hpp"

#include "litegraph/kernels/cortex_m/requantize.hpp"
#include "litegraph/kernels/elementwise.hpp"
#include "litegraph/ops/activation.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace litegraph;
using kernels::conv_geometry;
namespace simd = kernels::simd;

namespace {

using kernel_test::describe;

using kernel_test::make_geometry;

std::vector<std::int8_t> random_i8(std::int64_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> d(-128, 127);
    std::vector<std::int8_t> v(static_cast<std::size_t>(n));
    for (auto& x : v) x = static_cast<std::int8_t>(d(rng));
    return v;
}

/// The int32 outputs of a conv2d_int8-form kernel, NCHW, -1 where none was written.
template <class Run>
std::vector<std::int32_t> accumulate(const conv_geometry& g, Run&& run) {
    const std::int64_t plane = g.oh * g.ow;
    std::vector<std::int32_t> out(static_cast<std::size_t>(g.n * g.oc * plane), -1);
    auto sink = [&](std::int64_t n, std::int64_t oc, std::int64_t off, const std::int32_t* v,
                    std::int64_t count) {
        for (std::int64_t i = 0; i < count; ++i) out[(n * g.oc + oc) * plane + off + i] = v[i];
    };
    run(kernels::int32_sink_ref(sink));
    return out;
}

/// The paths with fast int8 kernels to test: the one LITEGRAPH_SIMD names
/// (ctest's kernels/conv_int8@avx2 ...), else every one usable here.
std::vector<simd::isa> fast_paths() {
    std::vector<simd::isa> paths;
    const char* env = std::getenv("LITEGRAPH_SIMD");
    for (int i = 0; i < simd::isa_count; ++i) {
        const auto p = static_cast<simd::isa>(i);
        if (env && *env && p != simd::active()) continue;
        if (simd::usable(p) && kernels::detail::int8_for(p).gemm) paths.push_back(p);
    }
    return paths;
}

/// The fast paths with vector int8 epilogues (every arch unit's; the
/// aarch64 baseline's GEMM requantizes with the scalar chain).
std::vector<simd::isa> epilogue_paths() {
    std::vector<simd::isa> paths;
    for (const auto p : fast_paths())
        if (kernels::detail::int8_for(p).requant_count > 0) paths.push_back(p);
    return paths;
}

void check_conv(const conv_geometry& g, std::uint32_t seed) {
    INFO(describe(g));
    REQUIRE(kernels::conv_int8_fast_covers(g));
    const auto x = random_i8(g.n * g.c * g.h * g.w, seed);
    auto f = random_i8(g.oc * (g.c / g.groups) * g.kh * g.kw, seed + 1);
    f[0] = -128;
    std::vector<std::int64_t> ref_scratch(
        static_cast<std::size_t>(kernels::conv_int8_scratch_words(g)));
    const auto want = accumulate(g, [&](kernels::int32_sink_ref s) {
        kernels::conv2d_int8(g, x.data(), f.data(), ref_scratch.data(), s);
    });
    for (const auto p : fast_paths()) {
        INFO("path " << simd::isa_name(p));
        const auto impl = kernels::detail::int8_for(p);
        const kernels::conv_int8_weights w(g, f.data(), impl.pack);
        CHECK(w.fits(g, impl.pack));
        auto conv = g.groups == 1 ? impl.gemm : impl.depthwise;
        REQUIRE(static_cast<bool>(conv));
        // Garbage, not zeros: the kernels write their scratch before they
        // read it (fused_int8 hands them a buffer kept between calls).
        std::vector<std::int64_t> scratch(
            static_cast<std::size_t>(kernels::detail::conv_int8_fast_scratch_words(g)),
            std::int64_t{-0x5a5a5a5a5a5a5a5b});
        const auto got = accumulate(
            g, [&](kernels::int32_sink_ref s) { conv(g, x.data(), w, scratch.data(), s); });
        CHECK(got == want);
    }
}

}  // namespace

TEST_CASE("the AVX2 paths have the fast int8 kernels and requantize loops") {
    for (const auto p : {simd::isa::avx2, simd::isa::avx512, simd::isa::avx512vnni}) {
        if (!simd::usable(p)) continue;
        const auto impl = kernels::detail::int8_for(p);
        CHECK(static_cast<bool>(impl.gemm));
        CHECK(static_cast<bool>(impl.depthwise));
        CHECK(impl.requant_count > 0);
        // The VNNI slot's GEMM reads quads of taps (vpdpbusd), the others pairs.
        CHECK((impl.pack == kernels::int8_pack::quads) == (p == simd::isa::avx512vnni));
    }
}

#if defined(LITEGRAPH_SIMD_ARM64)
TEST_CASE("the NEON paths have the int8 GEMM on quads, sdot where the CPU has it") {
    // The baseline (neon) runs the smull / sadalp loop, neon-dotprod the sdot
    // one: both over the quads packing, with the vector epilogues; both have
    // the smlal depthwise.
    const auto base = kernels::detail::int8_for(simd::isa::baseline);
    CHECK(simd::isa_name(simd::isa::baseline) == "neon");
    CHECK(static_cast<bool>(base.gemm));
    CHECK(static_cast<bool>(base.depthwise));
    CHECK(base.pack == kernels::int8_pack::quads);
    CHECK(static_cast<bool>(base.quantize));
    CHECK(simd::isa_name(simd::isa::neon_dotprod) == "neon-dotprod");
    MESSAGE("HWCAP asimddp " << simd::cpu().asimddp << ", i8mm " << simd::cpu().i8mm
                             << "; paths here: " << simd::detail::usable_list());
    // The CPU test is the kernel's HWCAP bit (QEMU -cpu max has it,
    // -cpu cortex-a53 has not), and the unit is linked into the tests.
    CHECK(simd::usable(simd::isa::neon_dotprod) == simd::cpu().asimddp);
    if (!simd::usable(simd::isa::neon_dotprod)) return;
    const auto dot = kernels::detail::int8_for(simd::isa::neon_dotprod);
    CHECK(static_cast<bool>(dot.gemm));
    CHECK(static_cast<bool>(dot.depthwise));
    const bool own_gemm = dot.gemm != base.gemm;
    CHECK(own_gemm);
    CHECK(dot.pack == kernels::int8_pack::quads);
    CHECK(dot.requant_count > 0);
    CHECK(dot.float_count > 0);
}
#endif

TEST_CASE("the quads packing (VNNI) gives the int8 sums on any CPU, its dot product emulated") {
    // vpdpbusd's arithmetic in plain code over conv_int8_weights' quads:
    // u8 activations (x + 128) times the packed s8 taps, four per int32
    // lane, minus corr[oc]: the reference's sums, whatever the CPU has.
    const auto g = make_geometry(1, 5, 7, 6, 11, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1);  // K 45, OC 11
    const auto x = random_i8(g.n * g.c * g.h * g.w, 40);
    auto f = random_i8(g.oc * g.c * g.kh * g.kw, 41);
    f[0] = -128;
    std::vector<std::int64_t> ref_scratch(
        static_cast<std::size_t>(kernels::conv_int8_scratch_words(g)));
    const auto want = accumulate(g, [&](kernels::int32_sink_ref s) {
        kernels::conv2d_int8(g, x.data(), f.data(), ref_scratch.data(), s);
    });
    const kernels::conv_int8_weights w(g, f.data(), kernels::int8_pack::quads);
    REQUIRE(w.kp == 48);
    CHECK(w.fits(g, kernels::int8_pack::quads));
    CHECK_FALSE(w.fits(g, kernels::int8_pack::pairs));
    const std::int64_t k = w.k, mr = kernels::int8_vnni_mr;
    std::vector<std::int32_t> got(want.size());
    for (std::int64_t oc = 0; oc < g.oc; ++oc)
        for (std::int64_t oh = 0; oh < g.oh; ++oh)
            for (std::int64_t ow = 0; ow < g.ow; ++ow) {
                std::int32_t sum = 0;
                for (std::int64_t q = 0; q < w.kp / 4; ++q) {
                    const auto word = static_cast<std::uint32_t>(w.words[static_cast<std::size_t>(
                        ((oc / mr) * (w.kp / 4) + q) * mr + oc % mr)]);
                    for (std::int64_t j = 0; j < 4; ++j) {
                        const std::int64_t kk = 4 * q + j;
                        std::int32_t u = 128;  // a padded tap, or one past K: x = 0
                        if (kk < k) {
                            const std::int64_t c = kk / (g.kh * g.kw), i = kk / g.kw % g.kh;
                            const std::int64_t jj = kk % g.kw;
                            const std::int64_t ih = oh * g.sh - g.pt + i * g.dh;
                            const std::int64_t iw = ow * g.sw - g.pl + jj * g.dw;
                            if (ih >= 0 && ih < g.h && iw >= 0 && iw < g.w)
                                u = x[static_cast<std::size_t>((c * g.h + ih) * g.w + iw)] + 128;
                        }
                        sum += u * static_cast<std::int8_t>(word >> (8 * j));
                    }
                }
                got[static_cast<std::size_t>((oc * g.oh + oh) * g.ow + ow)] =
                    sum - w.corr[static_cast<std::size_t>(oc)];
            }
    CHECK(got == want);
}

TEST_CASE("int8 1x1 and 3x3 convs (the GEMM form) match the reference bit for bit") {
    check_conv(make_geometry(1, 16, 8, 8, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1), 1);
    check_conv(make_geometry(2, 7, 5, 9, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),
               2);  // odd C, OC, plane
    check_conv(make_geometry(1, 3, 12, 20, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1), 3);
    check_conv(make_geometry(1, 64, 13, 13, 33, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1), 4);
    check_conv(make_geometry(1, 5, 9, 11, 6, 2, 3, 1, 2, 2, 1, 0, 1, 2, 0, 1), 5);
    check_conv(make_geometry(1, 512, 4, 4, 4, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),
               6);  // long K, 1x1 s1
    check_conv(make_geometry(1, 8, 6, 6, 12, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1), 7);  // 1x1 stride 2
}

TEST_CASE("int8 kxk convs through the padded image (stems, strides, row-spanning blocks)") {
    // The classifier stem: 3 channels, stride 2, pad 1; blocks within one output row.
    check_conv(make_geometry(1, 3, 48, 192, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1), 20);
    check_conv(make_geometry(2, 3, 23, 37, 16, 3, 3, 2, 2, 1, 1, 1, 0, 0, 1, 1), 21);   // odd sizes
    check_conv(make_geometry(1, 3, 31, 29, 64, 3, 3, 2, 2, 1, 1, 0, 0, 0, 0, 1), 22);   // no pad
    check_conv(make_geometry(1, 16, 15, 15, 64, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1), 23);  // ow 15
    check_conv(make_geometry(1, 4, 9, 5, 9, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1), 24);      // ow 5 < 16
    check_conv(make_geometry(1, 2, 7, 1, 3, 3, 1, 1, 1, 1, 1, 1, 1, 0, 0, 1), 25);      // ow 1
    check_conv(make_geometry(1, 5, 17, 40, 7, 3, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1), 26);    // stride 3
    check_conv(make_geometry(1, 3, 20, 45, 5, 3, 3, 1, 2, 2, 2, 2, 1, 2, 0, 1), 27);   // s2 dilated
    check_conv(make_geometry(1, 7, 8, 8, 10, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), 28);    // 1x1 padded
    check_conv(make_geometry(1, 3, 5, 5, 4, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 1), 29);     // k25, odd K
    check_conv(make_geometry(1, 64, 6, 7, 130, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1), 30);  // long K, OC
    // Short K: runs of up to int8_gemm_blocks blocks, a partial last run.
    check_conv(make_geometry(1, 16, 15, 20, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1), 31);
    check_conv(make_geometry(2, 3, 40, 41, 6, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1), 32);
    check_conv(make_geometry(1, 2, 33, 30, 5, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1), 33);
}

TEST_CASE("int8 depthwise convs match the reference bit for bit") {
    check_conv(make_geometry(1, 8, 16, 24, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 8), 10);
    check_conv(make_geometry(2, 5, 11, 13, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5), 11);
    check_conv(make_geometry(1, 4, 9, 30, 4, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 4), 12);
    check_conv(make_geometry(1, 3, 12, 12, 3, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 3), 13);
    check_conv(make_geometry(1, 3, 10, 17, 3, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 3), 14);  // dilation
    check_conv(make_geometry(1, 3, 10, 17, 3, 3, 3, 2, 2, 2, 3, 1, 0, 3, 1, 3),
               15);                                                                  // s2, dilation
    check_conv(make_geometry(1, 6, 3, 3, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 6), 16);   // tiny plane
    check_conv(make_geometry(1, 2, 7, 40, 2, 1, 4, 3, 1, 1, 1, 0, 0, 1, 2, 2), 17);  // even kw
    check_conv(make_geometry(1, 2, 8, 9, 2, 3, 2, 1, 2, 1, 1, 0, 0, 0, 0, 2), 18);
    // Wide rows: the AVX2 loops' 32 and 16 pixels per pass, then the 8-pixel tail.
    check_conv(make_geometry(2, 3, 2, 96, 3, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 3), 19);
    check_conv(make_geometry(1, 2, 5, 123, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2), 34);
    check_conv(make_geometry(1, 2, 7, 250, 2, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 2), 35);  // ow 125
    // AVX-512 blocks of rows x vectors: two runs of a row (13 vectors, the
    // last masked) in blocks of 2 rows and 1; 5 vectors in blocks of 4, 4, 2, 1;
    // a 7 x 7 window; stride 3.
    check_conv(make_geometry(1, 2, 11, 200, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2), 36);
    check_conv(make_geometry(2, 3, 11, 70, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3), 37);
    check_conv(make_geometry(1, 2, 9, 40, 2, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 2), 38);
    check_conv(make_geometry(1, 2, 14, 50, 2, 3, 3, 3, 2, 1, 1, 1, 1, 1, 1, 2), 39);
    // A 1 x 11 window, horizontal dilation 3, stride 2 (the NEON ld2 loop's
    // last block reads past the row into the slack).
    check_conv(make_geometry(1, 2, 5, 90, 2, 1, 11, 1, 2, 1, 3, 0, 0, 4, 4, 2), 40);
    // Planes of a few rows, where the kernels skip the window's tap rows
    // that read only padding: one row under a 5 x 5 window (the OCR
    // classifier's last stage), two under a dilated stride-2 one, and output
    // rows that read nothing but padding (pad 4 over a 3-row window).
    check_conv(make_geometry(1, 5, 1, 50, 5, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 5), 41);
    check_conv(make_geometry(2, 3, 2, 37, 3, 5, 5, 2, 2, 2, 1, 5, 5, 2, 2, 3), 42);
    check_conv(make_geometry(1, 3, 2, 20, 3, 3, 3, 1, 1, 1, 1, 4, 4, 1, 1, 3), 43);
    check_conv(make_geometry(1, 2, 3, 70, 2, 7, 7, 1, 1, 1, 1, 3, 3, 3, 3, 2), 44);
}

TEST_CASE("random int8 geometries match the reference bit for bit") {
    std::mt19937 rng(99);
    auto r = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    for (int t = 0; t < 60; ++t) {
        const bool dw = t % 2 == 1;
        const std::int64_t c = r(1, 20), kh = r(1, 5), kw = r(1, 5), sh = r(1, 3);
        const std::int64_t sw = dw ? r(1, 2) : r(1, 3), dh = r(1, 2), dwl = r(1, 2);
        const std::int64_t pt = r(0, 2), pb = r(0, 2), pl = r(0, 2), pr = r(0, 2);
        const std::int64_t h = dh * (kh - 1) + 1 + r(0, 12), w = dwl * (kw - 1) + 1 + r(0, 40);
        const std::int64_t oc = dw ? c : r(1, 19);
        check_conv(make_geometry(r(1, 2), c, h, w, oc, kh, kw, sh, sw, dh, dwl, pt, pb, pl, pr,
                                 dw ? c : 1),
                   static_cast<std::uint32_t>(100 + t));
    }
}

namespace {
template <class Act>
void check_requant(const Act& a, bool scaled) {
    using namespace kernels::epilogue;
    using C = chain<rescale, bias, act<Act>, quantize_store>;
    std::mt19937 rng(7);
    std::vector<std::int32_t> acc(77);
    for (std::size_t i = 0; i < acc.size(); ++i)
        acc[i] = i % 3 == 0 ? static_cast<std::int32_t>(i) - 38  // halves: ties
                            : std::uniform_int_distribution<std::int32_t>(-40000, 40000)(rng);
    acc[1] = 2147483647, acc[2] = -2147483647 - 1;
    const float m[2] = {0.5f, 0.013f}, b[2] = {0.25f, -1.5f}, k[2] = {1.5f, 0.75f};
    C c;
    std::get<0>(c.stages).multiplier = m;
    std::get<1>(c.stages).values = b;
    std::get<1>(c.stages).scale = scaled ? k : nullptr;
    std::get<2>(c.stages).f = a;
    std::get<3>(c.stages).inv_scale = 1.f;
    for (std::int64_t oc = 0; oc < 2; ++oc)
        for (const std::int64_t count : {std::int64_t{77}, std::int64_t{5}, std::int64_t{16}}) {
            std::vector<std::int8_t> want(static_cast<std::size_t>(count));
            const float kk = scaled ? k[oc] : 0.f;
            auto post = [&](float v) { return a(v); };
            if (scaled)
                kernels::cortex_m::requantize_run<true>(want.data(), acc.data(), count, m[oc], kk,
                                                        b[oc], 1.f, post);
            else
                kernels::cortex_m::requantize_run<false>(want.data(), acc.data(), count, m[oc], kk,
                                                         b[oc], 1.f, post);
            for (const auto p : epilogue_paths()) {
                INFO("path " << simd::isa_name(p) << " oc " << oc << " count " << count);
                const auto fn = kernels::detail::int8_requant_for<C>(kernels::detail::int8_for(p));
                REQUIRE(static_cast<bool>(fn));
                std::vector<std::int8_t> got(static_cast<std::size_t>(count), 99);
                fn(&c, got.data(), acc.data(), count, oc, 0);
                CHECK(got == want);
            }
        }
}

std::vector<std::int32_t> test_accumulators(std::size_t n) {
    std::mt19937 rng(11);
    std::vector<std::int32_t> acc(n);
    for (std::size_t i = 0; i < n; ++i)
        acc[i] = i % 3 == 0 ? static_cast<std::int32_t>(i) - 38
                            : std::uniform_int_distribution<std::int32_t>(-40000, 40000)(rng);
    if (n > 2) acc[1] = 2147483647, acc[2] = -2147483647 - 1;
    return acc;
}

std::vector<float> test_floats(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-3.f, 3.f);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

/// Binds chain C's rescale and bias (and Other, for add_with / gates) to
/// two channels of test values.
template <class C>
void bind_test_chain(C& c, const float* m, const float* b, const float* k, const float* other) {
    using namespace kernels::epilogue;
    std::get<0>(c.stages).multiplier = m;
    std::get<1>(c.stages).values = b;
    std::get<1>(c.stages).scale = k;
    std::apply(
        [&](auto&... s) {
            (
                [&](auto& stage) {
                    using S = std::decay_t<decltype(stage)>;
                    if constexpr (std::is_same_v<S, add_with>)
                        stage.other = other;
                    else if constexpr (is_gate<S>::value)
                        stage.mul.other = other;
                    else if constexpr (std::is_same_v<S, quantize_store>)
                        stage.inv_scale = 1.f / 0.037f;
                }(s),
                ...);
        },
        c.stages);
}

/// The float-output vector loop (int8_float_vec) of chain C, then chain::emit
/// for the tail, against chain::emit alone: the same bits.
template <class C>
void check_float_out(bool scaled) {
    const auto acc = test_accumulators(160);
    const auto other = test_floats(400, 5);
    const float m[2] = {0.5f, 0.013f}, b[2] = {0.25f, -1.5f}, k[2] = {1.5f, 0.75f};
    C c;
    bind_test_chain(c, m, b, scaled ? k : nullptr, other.data());
    for (std::int64_t oc = 0; oc < 2; ++oc)
        for (const std::int64_t count : {std::int64_t{77}, std::int64_t{5}, std::int64_t{16}}) {
            const kernels::epilogue::at a{0, oc, 3 + oc * 160};
            std::vector<float> want(400, -7.f);
            c.emit(want.data(), acc.data(), count, a);
            for (const auto p : epilogue_paths()) {
                INFO("path " << simd::isa_name(p) << " oc " << oc << " count " << count);
                const auto fn = kernels::detail::int8_float_for<C>(kernels::detail::int8_for(p));
                REQUIRE(static_cast<bool>(fn));
                std::vector<float> got(400, -7.f);
                const std::int64_t done = fn(&c, got.data(), acc.data(), count, a);
                // Whole vectors: 4 floats on NEON, 8 on AVX2, 16 on AVX-512.
                const std::int64_t lanes = simd::isa_name(p).rfind("neon", 0) == 0 ? 4 : 8;
                CHECK((done >= 0 && done <= count && done % lanes == 0));
                c.emit(got.data(), acc.data() + done, count - done,
                       kernels::epilogue::at{0, oc, a.index + done});
                CHECK(std::memcmp(got.data(), want.data(), want.size() * sizeof(float)) == 0);
            }
        }
}

/// The int8-output chain C through its vector requantize against
/// chain::emit: the same bytes.
template <class C>
void check_int8_out(bool scaled) {
    const auto acc = test_accumulators(160);
    const auto other = test_floats(400, 6);
    const float m[2] = {0.5f, 0.013f}, b[2] = {0.25f, -1.5f}, k[2] = {1.5f, 0.75f};
    C c;
    bind_test_chain(c, m, b, scaled ? k : nullptr, other.data());
    for (std::int64_t oc = 0; oc < 2; ++oc)
        for (const std::int64_t count : {std::int64_t{77}, std::int64_t{5}, std::int64_t{16}}) {
            const std::int64_t index = 3 + oc * 160;
            std::vector<std::int8_t> want(400, 99);
            c.emit(want.data(), acc.data(), count, kernels::epilogue::at{0, oc, index});
            for (const auto p : epilogue_paths()) {
                INFO("path " << simd::isa_name(p) << " oc " << oc << " count " << count);
                const auto fn = kernels::detail::int8_requant_for<C>(kernels::detail::int8_for(p));
                REQUIRE(static_cast<bool>(fn));
                std::vector<std::int8_t> got(400, 99);
                fn(&c, got.data() + index, acc.data(), count, oc, index);
                CHECK(got == want);
            }
        }
}
}  // namespace

TEST_CASE("the float-output int8 chains' vector loops match chain::emit bit for bit") {
    using namespace kernels::epilogue;
    for (const bool scaled : {false, true}) {
        CAPTURE(scaled);
        check_float_out<chain<rescale, bias>>(scaled);
        check_float_out<chain<rescale, bias, act<ops::act::hard_swish>>>(scaled);
        check_float_out<chain<rescale, bias, act<ops::act::relu>>>(scaled);
        check_float_out<chain<rescale, bias, add_with>>(scaled);
        check_float_out<chain<rescale, bias, gate<ops::act::hard_sigmoid, mul_with>>>(scaled);
    }
}

TEST_CASE("the residual add then quantize_store requantizes as the float add then quantize_int8") {
    using namespace kernels::epilogue;
    using C = chain<rescale, bias, add_with, quantize_store>;
    for (const bool scaled : {false, true}) {
        CAPTURE(scaled);
        check_int8_out<C>(scaled);
        // chain::emit's bytes are the float chain's, then quantize_int8's.
        const auto acc = test_accumulators(100);
        const auto other = test_floats(100, 8);
        const float m[1] = {0.013f}, b[1] = {-0.25f}, k[1] = {1.5f};
        C q;
        bind_test_chain(q, m, b, scaled ? k : nullptr, other.data());
        chain<rescale, bias, add_with> f;
        bind_test_chain(f, m, b, scaled ? k : nullptr, other.data());
        std::vector<float> real(100);
        f.emit(real.data(), acc.data(), 100, at{});
        std::vector<std::int8_t> want(100), got(100, 99);
        kernels::quantize_int8(0.037f, real.data(), want.data(), 100);
        q.emit(got.data(), acc.data(), 100, at{});
        CHECK(got == want);
    }
}

TEST_CASE("an SE gate then quantize_store writes the float gate's quantize_int8 bytes") {
    using namespace kernels::epilogue;
    using G = gate<ops::act::hard_sigmoid, mul_plane>;
    const std::int64_t plane = 37;
    const auto acc = test_accumulators(2);
    auto other = test_floats(2 * plane, 9);
    other[3] = 0.f, other[4] = -0.f;
    const float m[2] = {0.002f, 0.013f}, b[2] = {0.25f, -1.5f};
    chain<rescale, bias, G, quantize_store> q;
    bind_test_chain(q, m, b, nullptr, other.data());
    std::get<2>(q.stages).mul.plane = plane;
    chain<rescale, bias, G> f;
    bind_test_chain(f, m, b, nullptr, other.data());
    std::get<2>(f.stages).mul.plane = plane;
    std::vector<float> real(2 * plane);
    f.emit(real.data(), acc.data(), 2, at{});
    std::vector<std::int8_t> want(real.size());
    kernels::quantize_int8(0.037f, real.data(), want.data(), 2 * plane);
    std::vector<std::int8_t> got(real.size(), 99);
    q.emit(got.data(), acc.data(), 2, at{});
    CHECK(got == want);
    for (const auto p : fast_paths()) {
        INFO("path " << simd::isa_name(p));
        const auto fn = kernels::detail::int8_for(p).plane_quantize;
        REQUIRE(static_cast<bool>(fn));
        std::get<2>(q.stages).mul.quantize_run = fn;
        std::vector<std::int8_t> v(real.size(), 99);
        q.emit(v.data(), acc.data(), 2, at{});
        CHECK(v == want);
    }
}

TEST_CASE("every AVX2 path quantizes float32 to int8 as kernels::quantize_int8") {
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> d(-300.f, 300.f);
    std::vector<float> x(203);
    for (auto& v : x) v = d(rng);
    x[41] = std::numeric_limits<float>::quiet_NaN();
    x[42] = std::numeric_limits<float>::infinity();
    x[46] = 127.5f, x[47] = -128.5f, x[48] = -0.5f, x[49] = 0.5f;
    for (const auto p : fast_paths()) {
        INFO("path " << simd::isa_name(p));
        const auto fn = kernels::detail::int8_for(p).quantize;
        REQUIRE(static_cast<bool>(fn));
        for (const float step : {1.f, 0.5f, 0.037f}) {
            for (const std::int64_t n : {std::int64_t{203}, std::int64_t{3}}) {
                std::vector<std::int8_t> want(static_cast<std::size_t>(n)), got(want.size(), 99);
                kernels::quantize_int8(step, x.data(), want.data(), n);
                fn(step, x.data(), got.data(), n);
                CHECK(got == want);
            }
        }
    }
}

// The vector rounding (detail::round_int8_vec) is a monotone step function
// of its float, as epilogue::saturate_int8 is, so they agree everywhere when
// they agree at every step and on the floats either side of it: every half
// in [-257.5, 257.5], the integers, the floats next to both, 0 and -0, the
// saturation edges, infinities and NaN, at step 1 (x * 1 is x).
TEST_CASE("every fast path's quantize_int8 rounds as saturate_int8 next to every half") {
    std::vector<float> x;
    for (int k = -258; k <= 258; ++k) {
        for (const float v : {static_cast<float>(k), static_cast<float>(k) + 0.5f}) {
            x.push_back(v);
            x.push_back(std::nextafter(v, 1e9f));
            x.push_back(std::nextafter(v, -1e9f));
        }
    }
    for (const float v :
         {-0.f, 0.49999997f, -0.49999997f, 1e30f, -1e30f, 3.4e38f,
          std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
          std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::denorm_min()})
        x.push_back(v);
    const auto n = static_cast<std::int64_t>(x.size());
    std::vector<std::int8_t> want(x.size());
    for (std::size_t i = 0; i < x.size(); ++i) want[i] = kernels::epilogue::saturate_int8(x[i]);
    for (const auto p : fast_paths()) {
        INFO("path " << simd::isa_name(p));
        const auto fn = kernels::detail::int8_for(p).quantize;
        REQUIRE(static_cast<bool>(fn));
        std::vector<std::int8_t> got(x.size(), 99);
        fn(1.f, x.data(), got.data(), n);
        int wrong = 0;
        for (std::size_t i = 0; i < x.size(); ++i)
            if (got[i] != want[i] && ++wrong <= 5)
                MESSAGE("x = " << x[i] << ": " << int(got[i]) << ", want " << int(want[i]));
        CHECK(wrong == 0);
    }
}

TEST_CASE("the vector requantize matches requantize_run byte for byte") {
    check_requant(ops::act::relu{}, false);
    check_requant(ops::act::relu{}, true);
    check_requant(ops::act::relu6{}, false);
    check_requant(ops::act::hard_swish{}, true);
}

#if defined(LITEGRAPH_SIMD_X86) || defined(LITEGRAPH_SIMD_ARM64)
TEST_CASE("the vector quantize_int8 matches kernels::quantize_int8 byte for byte") {
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> d(-300.f, 300.f);
    std::vector<float> x(203);
    for (auto& v : x) v = d(rng);
    for (int i = 0; i < 40; ++i)
        x[static_cast<std::size_t>(i)] = static_cast<float>(i - 20) * 0.25f;
    x[41] = std::numeric_limits<float>::quiet_NaN();
    x[42] = std::numeric_limits<float>::infinity();
    x[43] = -std::numeric_limits<float>::infinity();
    x[44] = 1e30f, x[45] = -1e30f, x[46] = 127.5f, x[47] = -128.5f, x[48] = -0.5f;
    for (const float step : {1.f, 0.5f, 0.037f}) {
        for (const std::int64_t n : {std::int64_t{203}, std::int64_t{3}}) {
            std::vector<std::int8_t> want(static_cast<std::size_t>(n)), got(want.size(), 99);
            kernels::quantize_int8(step, x.data(), want.data(), n);
            kernels::detail::quantize_int8_vec(step, x.data(), got.data(), n);
            CHECK(got == want);
        }
    }
}
#endif
