// kernels::conv2d (depthwise, 1x1 GEMM, Winograd and im2col paths) against a plain
// direct-convolution loop in double, over odd sizes, strides, dilations,
// groups, asymmetric paddings and batches; and the epilogue contract: every
// output element exactly once, runs inside one plane.
#include "litegraph/kernels/conv.hpp"
#include "geometry.hpp"
#include "simd_path.hpp"

#include "litegraph/ops/activation.hpp"

#include <doctest/doctest.h>

#include "random_vec.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace litegraph;
using kernels::conv_geometry;

namespace {

using kernel_test::random_vec;

using kernel_test::describe;

using kernel_test::make_geometry;

std::vector<double> ref_conv(const conv_geometry& g, const float* x, const float* w) {
    const std::int64_t cg = g.c / g.groups, ocg = g.oc / g.groups;
    std::vector<double> y(static_cast<std::size_t>(g.n * g.oc * g.oh * g.ow), 0.0);
    for (std::int64_t n = 0; n < g.n; ++n)
        for (std::int64_t oc = 0; oc < g.oc; ++oc)
            for (std::int64_t oh = 0; oh < g.oh; ++oh)
                for (std::int64_t ow = 0; ow < g.ow; ++ow) {
                    double s = 0;
                    const std::int64_t grp = oc / ocg;
                    for (std::int64_t ic = 0; ic < cg; ++ic)
                        for (std::int64_t i = 0; i < g.kh; ++i)
                            for (std::int64_t j = 0; j < g.kw; ++j) {
                                const std::int64_t ih = oh * g.sh - g.pt + i * g.dh;
                                const std::int64_t iw = ow * g.sw - g.pl + j * g.dw;
                                if (ih < 0 || ih >= g.h || iw < 0 || iw >= g.w) continue;
                                s += double(x[((n * g.c + grp * cg + ic) * g.h + ih) * g.w + iw]) *
                                     double(w[((oc * cg + ic) * g.kh + i) * g.kw + j]);
                            }
                    y[((n * g.oc + oc) * g.oh + oh) * g.ow + ow] = s;
                }
    return y;
}

struct counting_epilogue {
    const conv_geometry* g;
    std::vector<float>* out;
    std::vector<int>* hits;
    bool* out_of_range;
    void operator()(std::int64_t n, std::int64_t oc, std::int64_t offset, const float* v,
                    std::int64_t count) const {
        const std::int64_t plane = g->oh * g->ow;
        if (n < 0 || n >= g->n || oc < 0 || oc >= g->oc || offset < 0 || count <= 0 ||
            offset + count > plane) {
            *out_of_range = true;
            return;
        }
        for (std::int64_t j = 0; j < count; ++j) {
            const std::int64_t idx = (n * g->oc + oc) * plane + offset + j;
            (*out)[idx] = v[j];
            ++(*hits)[idx];
        }
    }
};

// Runs `fn` (a kernels:: conv entry) on g and compares with the reference:
// every element within `tol` of it, relative to 1 + |reference|.
template <class Fn>
void check_conv(const conv_geometry& g, Fn&& fn, double tol = 1e-4) {
    INFO(describe(g));
    REQUIRE(g.oh > 0);
    REQUIRE(g.ow > 0);
    const auto x = random_vec(g.n * g.c * g.h * g.w, static_cast<std::uint32_t>(g.c * 131 + g.w));
    const auto w = random_vec(g.oc * (g.c / g.groups) * g.kh * g.kw,
                              static_cast<std::uint32_t>(g.oc * 7 + g.kh));
    const auto ref = ref_conv(g, x.data(), w.data());
    std::vector<float> y(ref.size(), NAN);
    std::vector<int> hits(ref.size(), 0);
    bool bad = false;
    fn(g, x.data(), w.data(), counting_epilogue{&g, &y, &hits, &bad});
    CHECK_FALSE(bad);
    int wrong_hits = 0, wrong_values = 0;
    double worst = 0;
    for (std::size_t i = 0; i < y.size(); ++i) {
        wrong_hits += hits[i] != 1;
        const double err = std::abs(double(y[i]) - ref[i]) / (1.0 + std::abs(ref[i]));
        worst = std::max(worst, std::isnan(y[i]) ? 1e9 : err);
        wrong_values += !(err <= tol);
    }
    CHECK(wrong_hits == 0);
    CHECK(wrong_values == 0);
    CHECK(worst <= tol);
}

const auto any_path = [](const conv_geometry& g, const float* x, const float* w, auto epi) {
    kernels::conv2d(g, x, w, epi);
};
const auto prepared_path = [](const conv_geometry& g, const float* x, const float* w, auto epi) {
    const kernels::conv_weights cw(g, w);
    kernels::conv2d(g, x, cw, epi);
};
const auto gemm_path = [](const conv_geometry& g, const float* x, const float* w, auto epi) {
    kernels::conv2d_gemm(g, x, w, epi);
};

}  // namespace

TEST_CASE("1x1 convs (GEMM in place) match the plain loop") {
    for (std::int64_t n : {1, 3})
        for (auto [c, oc, groups] : {std::array<std::int64_t, 3>{16, 8, 1},
                                     {8, 16, 1},
                                     {16, 48, 1},
                                     {48, 24, 1},
                                     {3, 5, 1},
                                     {12, 18, 3},
                                     {300, 7, 1},
                                     {72, 288, 1}})  // an SE block's expand conv
            for (auto [h, w] : {std::array<std::int64_t, 2>{24, 96}, {3, 24}, {7, 5}, {1, 1}})
                check_conv(make_geometry(n, c, h, w, oc, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, groups),
                           any_path);
}

TEST_CASE("depthwise 3x3 and 5x5, strides 1 and 2, any padding, match the plain loop") {
    for (std::int64_t n : {1, 2})
        for (std::int64_t k : {3, 5})
            for (std::int64_t s : {1, 2})
                for (auto [h, w] : {std::array<std::int64_t, 2>{24, 96},
                                    {12, 48},
                                    {6, 24},
                                    {3, 24},
                                    {7, 13},
                                    {5, 5},
                                    {9, 67}})
                    for (auto [pt, pb, pl, pr] :
                         {std::array<std::int64_t, 4>{k / 2, k / 2, k / 2, k / 2},
                          {0, 0, 0, 0},
                          {1, 0, 2, 0},
                          {0, 2, 0, 1}}) {
                        auto g = make_geometry(n, 5, h, w, 5, k, k, s, s, 1, 1, pt, pb, pl, pr, 5);
                        if (g.oh < 1 || g.ow < 1) continue;
                        check_conv(g, any_path);
                    }
}

TEST_CASE("depthwise with other windows, mixed strides and dilations matches the plain loop") {
    check_conv(make_geometry(2, 4, 11, 17, 4, 3, 3, 1, 2, 2, 1, 2, 1, 1, 3, 4), any_path);
    check_conv(make_geometry(1, 3, 10, 31, 3, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 3), any_path);
    check_conv(make_geometry(1, 3, 10, 31, 3, 1, 1, 2, 3, 1, 1, 1, 0, 0, 2, 3), any_path);
    check_conv(make_geometry(1, 6, 9, 40, 6, 2, 7, 3, 3, 1, 2, 0, 1, 3, 3, 6), any_path);
    check_conv(make_geometry(1, 2, 16, 70, 2, 5, 3, 2, 1, 1, 3, 2, 2, 4, 4, 2), any_path);
    check_conv(make_geometry(1, 2, 8, 8, 2, 3, 3, 4, 4, 1, 1, 1, 1, 1, 1, 2), any_path);
}

TEST_CASE("depthwise planes taller than one band of output rows match the plain loop") {
    // Bands hold about 4K floats of output rows; these planes need several,
    // with a last band of fewer rows, widths on and off the vector width.
    check_conv(make_geometry(1, 2, 90, 130, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2), any_path);
    check_conv(make_geometry(2, 3, 161, 321, 3, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 3), any_path);
    check_conv(make_geometry(1, 2, 75, 160, 2, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 2), any_path);
    check_conv(make_geometry(1, 2, 300, 17, 2, 3, 3, 1, 1, 2, 1, 2, 2, 1, 1, 2), any_path);
}

TEST_CASE("depthwise reads each input plane whole before it emits that output plane") {
    // The contract the in-place depthwise conv relies on: when the epilogue
    // writes output plane (n, c) over the input, the result is unchanged.
    for (const auto& g : {make_geometry(2, 3, 90, 130, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3),
                          make_geometry(1, 4, 61, 200, 4, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 4),
                          make_geometry(1, 3, 40, 41, 3, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 3)}) {
        INFO(describe(g));
        auto x = random_vec(g.n * g.c * g.h * g.w, 9);
        const auto w = random_vec(g.c * g.kh * g.kw, 10);
        const auto ref = ref_conv(g, x.data(), w.data());
        float* buf = x.data();
        kernels::conv2d(g, x.data(), w.data(),
                        kernels::conv_store_epilogue(buf, g.oc * g.oh * g.ow, g.oh * g.ow));
        int wrong = 0;
        for (std::size_t i = 0; i < ref.size(); ++i)
            wrong += !(std::abs(x[i] - ref[i]) <= 1e-4 * (1 + std::abs(ref[i])));
        CHECK(wrong == 0);
    }
}

TEST_CASE("depthwise_conv2d_direct: bias and activation in registers match the plain loop") {
    // Row ends off the vector width, strides, dilations, asymmetric pads,
    // batch 2, the unrolled and the generic windows; in place of the input too.
    const ops::act::relu6 relu6{};
    const ops::act::hard_swish hswish{};
    for (const auto& g : {make_geometry(2, 3, 13, 37, 3, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 3),
                          make_geometry(1, 4, 24, 96, 4, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1, 4),
                          make_geometry(1, 2, 61, 200, 2, 5, 5, 2, 2, 1, 1, 2, 2, 2, 2, 2),
                          make_geometry(2, 5, 9, 67, 5, 5, 5, 1, 1, 1, 1, 0, 2, 1, 0, 5),
                          make_geometry(1, 3, 11, 17, 3, 3, 2, 1, 2, 2, 1, 2, 1, 1, 3, 3),
                          make_geometry(1, 2, 7, 5, 2, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2),
                          // Rows of 8 + 4 + 2 AVX2 vectors (blocks of 8 and the halving rest),
                          // and the recognizer's 2-row planes under 5x5.
                          make_geometry(1, 2, 6, 110, 2, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 2),
                          make_geometry(2, 3, 2, 160, 3, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 3)})
        for (int mode = 0; mode < 4; ++mode)
            for (bool in_place : {false, true}) {
                INFO(describe(g) << " mode " << mode << (in_place ? " in place" : ""));
                if (in_place && g.oh * g.ow > g.h * g.w) continue;
                auto x = random_vec(g.n * g.c * g.h * g.w, 3);
                const auto w = random_vec(g.c * g.kh * g.kw, 4);
                const auto b = random_vec(g.c, 5);
                const auto ref = ref_conv(g, x.data(), w.data());
                std::vector<float> y(ref.size(), NAN);
                float* out = in_place ? x.data() : y.data();
                auto expect = [&](std::size_t i) {
                    const std::int64_t c = static_cast<std::int64_t>(i) / (g.oh * g.ow) % g.c;
                    const float v = static_cast<float>(ref[i]);
                    switch (mode) {
                        case 0:
                            return v;
                        case 1:
                            return v + b[c];
                        case 2:
                            return relu6(v + b[c]);
                        default:
                            return hswish(v + b[c]);
                    }
                };
                auto run = [&](auto act, bool with_bias) {
                    kernels::depthwise_direct<decltype(act)> d;
                    d.y = out;
                    d.bias = with_bias ? b.data() : nullptr;
                    d.act = act;
                    kernels::depthwise_conv2d_direct(g, x.data(), w.data(), d);
                };
                if (mode == 0) run(kernels::identity_act{}, false);
                if (mode == 1) run(kernels::identity_act{}, true);
                if (mode == 2) run(relu6, true);
                if (mode == 3) run(hswish, true);
                int wrong = 0;
                for (std::size_t i = 0; i < ref.size(); ++i)
                    wrong += !(std::abs(out[i] - expect(i)) <= 1e-4 * (1 + std::abs(expect(i))));
                CHECK(wrong == 0);
            }
}

TEST_CASE("pointwise_conv2d_direct gives the SGEMM path's bits, whole or in column ranges") {
    // Planes on and off the vector width (the ragged columns), output
    // channels in blocks of 6, 4, 2 and 1, sums of 1 to 64 terms, batch 2; a
    // scale (a folded batch norm) or none; the identity, relu6 and hard_swish.
    const ops::act::relu6 relu6{};
    const ops::act::hard_swish hswish{};
    for (const auto& g : {make_geometry(2, 8, 16, 160, 40, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),
                          make_geometry(1, 24, 4, 160, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),
                          make_geometry(2, 1, 3, 11, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),
                          make_geometry(1, 64, 5, 37, 9, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),
                          make_geometry(1, 16, 2, 9, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1)})
        for (int mode = 0; mode < 6; ++mode) {
            INFO(describe(g) << " mode " << mode);
            const auto x = random_vec(g.n * g.c * g.h * g.w, 3);
            const auto w = random_vec(g.oc * g.c, 4);
            const auto b = random_vec(g.oc, 5);
            const auto sc = random_vec(g.oc, 6);
            const bool scaled = mode % 2 == 1;
            const std::int64_t plane = g.oh * g.ow;
            // The SGEMM path (prepared weights, as the fused conv runs it) and
            // the bias stage and activation in scalar after it.
            auto finish = [&](float v, std::int64_t oc) {
                v = scaled ? v * sc[oc] + b[oc] : v + b[oc];
                return mode / 2 == 0 ? v : (mode / 2 == 1 ? relu6(v) : hswish(v));
            };
            std::vector<float> want(static_cast<std::size_t>(g.n * g.oc * plane), NAN);
            const kernels::conv_weights cw(g, w.data());
            kernels::conv2d(g, x.data(), cw,
                            [&](std::int64_t n, std::int64_t oc, std::int64_t off, const float* v,
                                std::int64_t count) {
                                for (std::int64_t i = 0; i < count; ++i)
                                    want[(n * g.oc + oc) * plane + off + i] = finish(v[i], oc);
                            });
            std::vector<float> y(want.size(), NAN);
            // Whole, or (as threads run it) in column ranges off the vector
            // width, the last first and past the plane's end.
            std::vector<float> parts(want.size(), NAN);
            auto run = [&](auto act) {
                kernels::depthwise_direct<decltype(act)> d;
                d.y = parts.data();
                d.bias = b.data();
                d.scale = scaled ? sc.data() : nullptr;
                d.act = act;
                const std::int64_t cuts[] = {plane + 50, plane / 2 + 3, 17, 0};
                bool ok = true;
                for (int r = 0; r < 3; ++r)
                    ok = kernels::pointwise_conv2d_direct(g, x.data(), w.data(), d, cuts[r + 1],
                                                          cuts[r]) &&
                         ok;
                d.y = y.data();
                return kernels::pointwise_conv2d_direct(g, x.data(), w.data(), d) && ok;
            };
            const bool ran = mode / 2 == 0 ? run(kernels::identity_act{})
                                           : (mode / 2 == 1 ? run(relu6) : run(hswish));
            const bool fits = kernels::pointwise_direct_fits(
                g, kernels::detail::depthwise_direct_for<kernels::identity_act>(
                       kernels::simd::active())
                       .width);
            CHECK(ran == fits);
            if (!ran) continue;
            CHECK(std::memcmp(y.data(), want.data(), y.size() * sizeof(float)) == 0);
            CHECK(std::memcmp(parts.data(), want.data(), y.size() * sizeof(float)) == 0);
            const auto ref = ref_conv(g, x.data(), w.data());
            int wrong = 0;
            for (std::size_t i = 0; i < ref.size(); ++i) {
                const float e =
                    finish(static_cast<float>(ref[i]), static_cast<std::int64_t>(i) / plane % g.oc);
                wrong += !(std::abs(y[i] - e) <= 1e-4 * (1 + std::abs(e)));
            }
            CHECK(wrong == 0);
        }
    // Too wide a sum, a stride, a group: not taken, nothing written.
    for (const auto& g : {make_geometry(1, 65, 4, 40, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),
                          make_geometry(1, 8, 8, 40, 8, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1),
                          make_geometry(1, 8, 4, 40, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2)}) {
        const auto x = random_vec(g.n * g.c * g.h * g.w, 3);
        const auto w = random_vec(g.oc * g.c / g.groups, 4);
        const auto b = random_vec(g.oc, 5);
        std::vector<float> y(static_cast<std::size_t>(g.n * g.oc * g.oh * g.ow), 7.f);
        kernels::depthwise_direct<kernels::identity_act> d;
        d.y = y.data();
        d.bias = b.data();
        CHECK_FALSE(kernels::pointwise_conv2d_direct(g, x.data(), w.data(), d));
        CHECK(std::count(y.begin(), y.end(), 7.f) == static_cast<std::ptrdiff_t>(y.size()));
    }
}

TEST_CASE("general convs (im2col) match the plain loop") {
    // stem-like 3x3 stride 2, strided 1x1, padded 1x1, dilations, groups,
    // depthwise with a multiplier, asymmetric windows and paddings.
    check_conv(make_geometry(1, 3, 48, 192, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1), any_path);
    check_conv(make_geometry(2, 3, 48, 192, 8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1), any_path);
    check_conv(make_geometry(2, 8, 13, 21, 12, 1, 1, 2, 2, 1, 1, 0, 0, 0, 0, 1), any_path);
    check_conv(make_geometry(1, 8, 13, 21, 12, 1, 1, 1, 1, 1, 1, 1, 0, 2, 1, 1), any_path);
    check_conv(make_geometry(1, 5, 19, 23, 7, 3, 3, 1, 1, 2, 3, 2, 2, 3, 3, 1), any_path);
    check_conv(make_geometry(2, 12, 10, 15, 18, 3, 3, 1, 2, 1, 1, 1, 0, 0, 1, 3), any_path);
    check_conv(make_geometry(1, 4, 9, 9, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 4),
               any_path);  // multiplier 2
    check_conv(make_geometry(1, 6, 14, 11, 9, 2, 4, 3, 1, 1, 1, 0, 1, 2, 0, 1), any_path);
    check_conv(make_geometry(1, 64, 20, 20, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1),
               any_path);  // K > kc
    check_conv(make_geometry(1, 2, 5, 5, 3, 5, 5, 1, 1, 1, 1, 0, 0, 0, 0, 1),
               any_path);  // 1x1 output
    check_conv(make_geometry(1, 2, 3, 4, 3, 3, 3, 1, 1, 1, 1, 4, 4, 4, 4, 1),
               any_path);  // mostly pad
}

TEST_CASE("the GEMM path also handles depthwise geometries") {
    check_conv(make_geometry(2, 5, 12, 48, 5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 5), gemm_path);
    check_conv(make_geometry(1, 5, 7, 9, 5, 5, 5, 1, 1, 1, 1, 2, 2, 2, 2, 5), gemm_path);
}

TEST_CASE("random geometries match the plain loop") {
    std::mt19937 rng(2024);
    auto pick = [&](std::int64_t lo, std::int64_t hi) {
        return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng);
    };
    int done = 0;
    while (done < 150) {
        const std::int64_t groups = pick(1, 3) == 1 ? pick(1, 4) : 1;
        const bool dw = pick(0, 2) == 0;
        const std::int64_t c = dw ? pick(1, 6) : groups * pick(1, 6);
        const std::int64_t oc = dw ? c : groups * pick(1, 7);
        const std::int64_t kh = pick(1, 5), kw = pick(1, 5);
        auto g = make_geometry(pick(1, 2), c, pick(1, 20), pick(1, 40), oc, kh, kw, pick(1, 3),
                               pick(1, 3), pick(1, 2), pick(1, 2), pick(0, 2), pick(0, 2),
                               pick(0, 3), pick(0, 3), dw ? c : groups);
        if (g.oh < 1 || g.ow < 1) continue;
        if (done % 2)
            check_conv(g, any_path);
        else
            check_conv(g, prepared_path);
        ++done;
    }
}

TEST_CASE("conv_store_epilogue writes dense NCHW, and bad geometry throws") {
    auto g = make_geometry(2, 4, 6, 10, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    const auto x = random_vec(g.n * g.c * g.h * g.w, 1), w = random_vec(g.oc * g.c * 9, 2);
    std::vector<float> y(static_cast<std::size_t>(g.n * g.oc * g.oh * g.ow), NAN);
    kernels::conv2d(g, x.data(), w.data(), kernels::conv_store_epilogue(y.data(), g));
    const auto ref = ref_conv(g, x.data(), w.data());
    int wrong = 0;
    for (std::size_t i = 0; i < y.size(); ++i)
        wrong += !(std::abs(y[i] - ref[i]) <= 1e-4 * (1 + std::abs(ref[i])));
    CHECK(wrong == 0);

    auto bad = g;
    bad.ow += 1;
    CHECK_THROWS_AS(
        kernels::conv2d(bad, x.data(), w.data(), kernels::conv_store_epilogue(y.data(), g)),
        shape_error);
    bad = g;
    bad.groups = 4;
    bad.oc = 6;
    CHECK_THROWS_AS(
        kernels::conv2d(bad, x.data(), w.data(), kernels::conv_store_epilogue(y.data(), g)),
        shape_error);
}

TEST_CASE("prepared conv_weights give the same result and refuse another filter") {
    for (const auto& g : {make_geometry(2, 16, 12, 48, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),
                          make_geometry(1, 12, 10, 15, 18, 3, 3, 1, 2, 1, 1, 1, 0, 0, 1, 3),
                          make_geometry(2, 24, 12, 48, 24, 5, 5, 2, 1, 1, 1, 2, 2, 2, 2, 24)})
        check_conv(g, prepared_path);
    const auto g = make_geometry(1, 8, 6, 6, 8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    const auto w = random_vec(8 * 8 * 9, 1), x = random_vec(8 * 36, 2);
    const kernels::conv_weights cw(g, w.data());
    std::vector<float> y(8 * 36);
    auto other = g;
    other.groups = 8;  // same OC and window, depthwise instead
    CHECK_THROWS_AS(kernels::conv2d(other, x.data(), cw, kernels::conv_store_epilogue(y.data(), g)),
                    shape_error);
}

TEST_CASE("Winograd 3x3 convs (prepared weights) match the plain loop") {
    // Odd and exact tile counts, blocks of a few tile rows
    // (a 70x20 plane: 18 tile rows of 5 tiles, two blocks of 9), every padding,
    // 16 to 96 input channels, 1 to 40 output channels, batches.
    for (auto [c, oc] : {std::array<std::int64_t, 2>{16, 16}, {17, 5}, {96, 24}, {32, 1}, {24, 40}})
        for (auto [h, w] :
             {std::array<std::int64_t, 2>{8, 8}, {9, 13}, {30, 37}, {12, 160}, {70, 20}})
            for (auto [pt, pb, pl, pr] : {std::array<std::int64_t, 4>{1, 1, 1, 1},
                                          {0, 0, 0, 0},
                                          {2, 0, 1, 2},
                                          {0, 3, 3, 0}}) {
                const auto g = make_geometry(c == 96 ? 1 : 2, c, h, w, oc, 3, 3, 1, 1, 1, 1, pt, pb,
                                             pl, pr, 1);
                if (!kernels::winograd_fits(g)) continue;
                // F(4x4, 3x3) rounds more than a direct sum: its transforms
                // scale terms by up to 8 x 8 (A) and 5 x 5 (B) before they
                // cancel, so at 96 channels the worst element here is off by
                // about 2e-4 of 1 + |sum| (a wrong transform is off by the
                // order of the sum itself).
                check_conv(g, prepared_path, c == 96 ? kernels::winograd_error_bar : 1e-4);
            }
    // What does not fit: fewer than 16 input channels, a plane under 8, a
    // stride, a dilation, groups; those weights are the GEMM path's.
    for (const auto& g : {make_geometry(1, 15, 20, 20, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1),
                          make_geometry(1, 16, 7, 20, 16, 3, 3, 1, 1, 1, 1, 0, 0, 1, 1, 1),
                          make_geometry(1, 16, 20, 20, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1),
                          make_geometry(1, 16, 20, 20, 16, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1),
                          make_geometry(1, 32, 20, 20, 16, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2)}) {
        CAPTURE(describe(g));
        CHECK_FALSE(kernels::winograd_fits(g));
        CHECK_FALSE(
            kernels::conv_weights(g, random_vec(g.oc * g.c / g.groups * 9, 3).data()).winograd());
    }
    const auto g = make_geometry(1, 16, 8, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    CHECK(kernels::winograd_fits(g));
    const auto w = random_vec(4 * 16 * 9, 4);
    CHECK(kernels::conv_weights(g, w.data()).winograd());
    // Weights prepared for a plane of 8 do not run a plane of 6 (the GEMM
    // path's): a clear error, not a wrong path.
    const kernels::conv_weights cw(g, w.data());
    const auto small = make_geometry(1, 16, 6, 6, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1);
    const auto x = random_vec(16 * 36, 5);
    std::vector<float> y(4 * 36);
    CHECK_THROWS_AS(
        kernels::conv2d(small, x.data(), cw, kernels::conv_store_epilogue(y.data(), small)),
        shape_error);
}

TEST_CASE("conv2d_units: any split of the units gives the whole call's output and runs") {
    // Pointwise planes of several SGEMM column blocks (K in one block and in
    // several), im2col bands, Winograd blocks, groups and images; units run
    // out of order, one at a time and in uneven ranges, as threads would.
    for (const auto& g : {make_geometry(2, 16, 40, 60, 24, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),
                          make_geometry(1, 300, 23, 29, 13, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1),
                          make_geometry(1, 8, 30, 31, 10, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2),
                          make_geometry(2, 3, 96, 200, 16, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1),
                          make_geometry(1, 64, 40, 40, 10, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2),
                          // Winograd: four blocks of 10, 10, 10 and 8 tile rows, 2 images.
                          make_geometry(2, 24, 150, 30, 20, 3, 3, 1, 1, 1, 1, 1, 1, 0, 2, 1),
                          // Planes of one value: a range of images is one SGEMM.
                          make_geometry(7, 72, 1, 1, 288, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 1)})
        // Each with the Winograd path allowed and not (its geometry then on
        // im2col bands).
        for (bool winograd : {true, false}) {
            CAPTURE(describe(g));
            CAPTURE(winograd);
            const std::int64_t cg = g.c / g.groups;
            const auto x = random_vec(g.n * g.c * g.h * g.w, 11);
            const auto w = random_vec(g.oc * cg * g.kh * g.kw, 12);
            const kernels::conv_weights cw(g, w.data(), winograd);
            CHECK(cw.winograd() == (winograd && kernels::winograd_fits(g)));
            const std::size_t size = static_cast<std::size_t>(g.n * g.oc * g.oh * g.ow);
            // Output and the run each element arrived in (its start and length).
            struct record {
                std::vector<float> y;
                std::vector<std::int64_t> run;
            };
            auto recorder = [&](record& r) {
                r.y.assign(size, NAN);
                r.run.assign(2 * size, -1);
                return [&r, &g](std::int64_t n, std::int64_t oc, std::int64_t off, const float* v,
                                std::int64_t count) {
                    const std::int64_t base = (n * g.oc + oc) * g.oh * g.ow + off;
                    for (std::int64_t i = 0; i < count; ++i) {
                        r.y[static_cast<std::size_t>(base + i)] = v[i];
                        r.run[static_cast<std::size_t>(2 * (base + i))] = off;
                        r.run[static_cast<std::size_t>(2 * (base + i) + 1)] = count;
                    }
                };
            };
            record whole, split;
            kernels::conv2d(g, x.data(), cw, recorder(whole));
            const std::int64_t units = kernels::conv2d_units(g, winograd);
            CHECK(units > 2);
            CHECK_THROWS_AS(kernels::conv2d_units(g, x.data(), cw, recorder(split), 0, units + 1),
                            shape_error);
            auto epi = recorder(split);
            // Ranges of 1, 2, 3, ... units, the last range first.
            std::vector<std::int64_t> starts{0};
            for (std::int64_t len = 1; starts.back() < units; ++len)
                starts.push_back(std::min(units, starts.back() + len));
            for (std::size_t r = starts.size() - 1; r > 0; --r)
                kernels::conv2d_units(g, x.data(), cw, epi, starts[r - 1], starts[r]);
            int wrong = 0;
            for (std::size_t i = 0; i < size; ++i)
                wrong += std::memcmp(&whole.y[i], &split.y[i], sizeof(float)) != 0;
            CHECK(wrong == 0);
            CHECK(whole.run == split.run);
            const auto ref = ref_conv(g, x.data(), w.data());
            const double tol = cw.winograd() ? kernels::winograd_error_bar : 1e-4;
            int far = 0;
            for (std::size_t i = 0; i < size; ++i)
                far += !(std::abs(whole.y[i] - ref[i]) <= tol * (1 + std::abs(ref[i])));
            CHECK(far == 0);
        }
}
