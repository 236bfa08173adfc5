// The fused float conv's firmware kernels (form.packed: the blocked GEMM over
// a filter packed as `litegraph codegen` packs it, the direct depthwise conv;
// kernels/cortex_m/conv_f32.hpp, here on their C++ loops) against the same
// form on the row loop, the runtime's reference kernel, on the shapes the
// firmware meets: 1x1 (dense, strided, padded, one pixel), im2col convs with
// stride, padding and dilation, OC not a multiple of 4, depthwise 3x3 / 5x5
// with stride 1 and 2, in place of its input, and a residual add.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "litegraph/fusion/fused.hpp"

using namespace litegraph;
using namespace litegraph::fusion;

namespace {

struct shape {
    std::int64_t n, c, h, w, oc, kh, kw, sh, sw, pt, pb, pl, pr, dh, dw, groups;
    ops::conv2d::geometry geometry() const {
        ops::conv2d::geometry g{};
        g.n = n, g.c = c, g.h = h, g.w = w, g.oc = oc, g.kh = kh, g.kw = kw;
        g.sh = sh, g.sw = sw, g.dh = dh, g.dw = dw, g.pt = pt, g.pb = pb, g.pl = pl, g.pr = pr;
        g.groups = groups;
        g.oh = (h + pt + pb - dh * (kh - 1) - 1) / sh + 1;
        g.ow = (w + pl + pr - dw * (kw - 1) - 1) / sw + 1;
        return g;
    }
};

std::vector<float> random(std::size_t n, std::uint32_t seed) {
    std::vector<float> v(n);
    for (auto& x : v) {
        seed = seed * 1664525u + 1013904223u;
        x = static_cast<float>(seed >> 8) / 8388608.f - 1.f;
    }
    return v;
}

/// Runs Op's form on the row loop and packed; the largest difference
/// relative to max(1, |reference|).
template <class Op>
double packed_vs_row_loop(const shape& s, bool in_place, std::uint32_t seed) {
    const auto g = s.geometry();
    const std::size_t in = static_cast<std::size_t>(g.n * g.c * g.h * g.w);
    const std::size_t out = static_cast<std::size_t>(g.n * g.oc * g.oh * g.ow);
    const auto x = random(in, seed);
    const auto f =
        random(static_cast<std::size_t>(g.oc * (g.c / g.groups) * g.kh * g.kw), seed + 1);
    const auto b = random(static_cast<std::size_t>(g.oc), seed + 2);
    const auto other = random(out, seed + 3);
    typename Op::form slow{};
    slow.g = g;
    slow.in_place = in_place;
    const auto fast = Op::packed_form(slow);
    REQUIRE(fast.packed);
    std::vector<float> packed(f);
    if (const std::size_t p = Op::packed_floats(fast, 1)) {
        packed.assign(p, 0.f);
        Op::pack_input(fast, 1, f.data(), packed.data());
    }
    auto run = [&](const typename Op::form& form, const float* filter) {
        std::vector<std::int64_t> scratch((Op::scratch_bytes(form) + 7) / 8 + 1);
        std::vector<float> xo(std::max(in, out));
        std::copy(x.begin(), x.end(), xo.begin());
        std::vector<float> y(out);
        firmware_io io;
        io.in = {xo.data(), filter, b.data(), other.data(), nullptr, nullptr};
        io.out = in_place ? xo.data() : y.data();
        io.scratch = scratch.data();
        Op::run_form(form, io);
        if (in_place) y.assign(xo.begin(), xo.begin() + static_cast<std::ptrdiff_t>(out));
        return y;
    };
    const auto ref = run(slow, f.data());
    const auto got = run(fast, packed.data());
    double worst = 0;
    for (std::size_t i = 0; i < out; ++i)
        worst = std::max(worst, std::abs(static_cast<double>(got[i]) - ref[i]) /
                                    std::max(1.0, std::abs(static_cast<double>(ref[i]))));
    return worst;
}

}  // namespace

TEST_CASE("fused conv firmware kernels: the packed GEMM and the direct depthwise conv") {
    using relu_conv = fused<ops::conv2d, bias, act<ops::act::relu>>;
    // clang-format off
    const shape gemm[] = {
        // n  c   h   w  oc kh kw sh sw pt pb pl pr dh dw g
        {1, 16,  6,  7, 24, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // dense 1x1, 42 pixels (a partial panel)
        {2,  5,  4,  4,  7, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // OC 7, two images
        {1,  8,  9,  9,  6, 1, 1, 2, 2, 0, 0, 0, 0, 1, 1, 1},  // 1x1 stride 2
        {1,  4,  5,  6,  5, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1},  // 1x1 padded
        {1, 32,  1,  1, 10, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1},  // one pixel (an SE conv)
        {1,  3, 12, 16,  8, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1, 1},  // the stem: 3x3 s2 p1
        {1,  6,  9,  8,  9, 3, 3, 1, 1, 2, 2, 2, 2, 2, 2, 1},  // dilation 2
        {1,  4,  7,  9,  4, 3, 5, 1, 2, 0, 1, 2, 0, 1, 1, 1},  // 3x5, asymmetric padding
    };
    const shape dw[] = {
        {1,  8, 10, 12,  8, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1,  8},
        {1,  5, 11,  9,  5, 3, 3, 2, 2, 1, 1, 1, 1, 1, 1,  5},
        {2,  4,  9, 13,  4, 5, 5, 1, 1, 2, 2, 2, 2, 1, 1,  4},
        {1,  6, 12, 10,  6, 5, 5, 2, 2, 2, 2, 2, 2, 1, 1,  6},
        {1,  3,  8,  8,  3, 3, 3, 2, 2, 0, 1, 0, 1, 1, 1,  3},  // asymmetric padding
        {1,  4, 12,  9,  4, 3, 3, 2, 1, 1, 1, 1, 1, 1, 1,  4},  // stride (2, 1), as PP-OCR's
        {1,  4, 11, 10,  4, 5, 5, 2, 1, 2, 2, 2, 2, 1, 1,  4},
        {1,  2,  9, 12,  2, 3, 3, 1, 2, 1, 1, 1, 1, 1, 1,  2},  // stride (1, 2)
        {1,  3,  6,  7,  3, 7, 7, 1, 1, 3, 3, 3, 3, 1, 1,  3},  // 7x7: the generic row
    };
    // clang-format on
    std::uint32_t seed = 1;
    for (const auto& s : gemm) {
        CAPTURE(s.c);
        CAPTURE(s.oc);
        CAPTURE(s.kh);
        CAPTURE(s.sh);
        CAPTURE(s.pt);
        CHECK(packed_vs_row_loop<relu_conv>(s, false, seed += 4) < 1e-5);
        CHECK(packed_vs_row_loop<fused<ops::conv2d, bias, add_with>>(s, false, seed += 4) < 1e-5);
    }
    for (const auto& s : dw) {
        CAPTURE(s.c);
        CAPTURE(s.kh);
        CAPTURE(s.sh);
        CAPTURE(s.pt);
        CHECK(packed_vs_row_loop<relu_conv>(s, false, seed += 4) < 1e-5);
        CHECK(packed_vs_row_loop<relu_conv>(s, true, seed += 4) < 1e-5);
    }
}

TEST_CASE("fused conv firmware kernels: which convs they take") {
    using C = fused<ops::conv2d, bias>;
    C::form f{};
    f.g =
        shape{1, 4, 5, 5, 4, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 2}.geometry();  // grouped, not depthwise
    CHECK_FALSE(C::packed_form(f).packed);
    CHECK(C::packed_floats(C::packed_form(f), 1) == 0);
    f.g = shape{1, 4, 5, 5, 6, 3, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1}.geometry();
    CHECK(C::packed_form(f).packed);
    CHECK(C::packed_floats(C::packed_form(f), 1) == 8 * 4 * 9);  // OC 6 rounded up to 8
    CHECK(C::packed_floats(C::packed_form(f), 2) == 0);          // the bias as it is
    CHECK(C::packed_floats(f, 1) == 0);                          // the runtime's form
}
