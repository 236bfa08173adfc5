// conv3d (NCDHW) against a plain loop written here (zero-padded input built
// first, then a dense sum): strides, 3- and 6-value paddings, dilations,
// groups, SAME and VALID; size-1 dims; bad attributes and shapes are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_conv3d_test {

namespace {
struct conv_case {
    shape_t x, f;
    std::vector<std::int64_t> strides{1, 1, 1}, pads{0, 0, 0}, dil{1, 1, 1};
    std::int64_t groups = 1;
    std::string alg = "EXPLICIT";
};

// pads6: front, back, top, bottom, left, right (already resolved).
std::vector<float> baseline(const tensor& x, const tensor& f, const conv_case& c,
                            const std::int64_t pads6[6], const std::int64_t dil[3], shape_t& out) {
    const auto& xs = x.shape();
    const auto& fs = f.shape();
    const std::int64_t n = xs[0], ch = xs[1], oc = fs[0], cg = fs[1];
    std::int64_t in[3] = {xs[2], xs[3], xs[4]}, k[3] = {fs[2], fs[3], fs[4]}, pin[3], o[3];
    for (int i = 0; i < 3; ++i) {
        pin[i] = in[i] + pads6[2 * i] + pads6[2 * i + 1];
        o[i] = (pin[i] - (dil[i] * (k[i] - 1) + 1)) / c.strides[static_cast<std::size_t>(i)] + 1;
    }
    out = {n, oc, o[0], o[1], o[2]};
    // The padded input.
    std::vector<float> p(static_cast<std::size_t>(n * ch * pin[0] * pin[1] * pin[2]), 0.f);
    auto X = x.span<float>();
    for (std::int64_t a = 0; a < n * ch; ++a)
        for (std::int64_t d = 0; d < in[0]; ++d)
            for (std::int64_t h = 0; h < in[1]; ++h)
                for (std::int64_t w = 0; w < in[2]; ++w)
                    p[static_cast<std::size_t>(
                        ((a * pin[0] + d + pads6[0]) * pin[1] + h + pads6[2]) * pin[2] + w +
                        pads6[4])] =
                        X[static_cast<std::size_t>(((a * in[0] + d) * in[1] + h) * in[2] + w)];
    auto F = f.span<float>();
    std::vector<float> y(static_cast<std::size_t>(n * oc * o[0] * o[1] * o[2]));
    const std::int64_t per_group = oc / c.groups;
    for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t m = 0; m < oc; ++m)
            for (std::int64_t od = 0; od < o[0]; ++od)
                for (std::int64_t oh = 0; oh < o[1]; ++oh)
                    for (std::int64_t ow = 0; ow < o[2]; ++ow) {
                        double s = 0;
                        for (std::int64_t ci = 0; ci < cg; ++ci) {
                            const std::int64_t cin = (m / per_group) * cg + ci;
                            for (std::int64_t kd = 0; kd < k[0]; ++kd)
                                for (std::int64_t kh = 0; kh < k[1]; ++kh)
                                    for (std::int64_t kw = 0; kw < k[2]; ++kw) {
                                        const std::int64_t d = od * c.strides[0] + kd * dil[0];
                                        const std::int64_t h = oh * c.strides[1] + kh * dil[1];
                                        const std::int64_t w = ow * c.strides[2] + kw * dil[2];
                                        s += double(p[static_cast<std::size_t>(
                                                 (((b * ch + cin) * pin[0] + d) * pin[1] + h) *
                                                     pin[2] +
                                                 w)]) *
                                             F[static_cast<std::size_t>(
                                                 (((m * cg + ci) * k[0] + kd) * k[1] + kh) * k[2] +
                                                 kw)];
                                    }
                        }
                        y[static_cast<std::size_t>((((b * oc + m) * o[0] + od) * o[1] + oh) * o[2] +
                                                   ow)] = float(s);
                    }
    return y;
}

attr_map attrs(const conv_case& c) {
    attr_map a;
    a.set("strides", c.strides);
    a.set("paddings", c.pads);
    a.set("dilations", c.dil);
    a.set("groups", c.groups);
    a.set("padding_algorithm", c.alg);
    a.set("data_format", std::string("NCDHW"));
    return a;
}
}  // namespace

TEST_CASE("conv3d matches the baseline") {
    const std::vector<conv_case> cases{
        {{1, 2, 4, 5, 6}, {3, 2, 3, 3, 3}},
        {{2, 3, 5, 6, 7}, {4, 3, 2, 3, 2}, {2, 1, 2}, {1, 0, 2}},
        {{1, 4, 6, 6, 6}, {4, 2, 3, 3, 3}, {1, 2, 1}, {1, 1, 1}, {2, 1, 2}, 2},
        {{1, 4, 3, 4, 5}, {4, 1, 1, 3, 3}, {1, 1, 1}, {0, 1, 1, 0, 2, 1}, {1, 1, 1}, 4},
        {{1, 2, 1, 1, 1}, {2, 2, 1, 1, 1}},
        {{1, 2, 5, 7, 6}, {3, 2, 3, 2, 3}, {2, 2, 3}, {9, 9, 9}, {2, 2, 2}, 1, "SAME"},
        {{1, 2, 5, 7, 6}, {3, 2, 3, 2, 3}, {2, 1, 2}, {4, 4, 4}, {1, 2, 1}, 1, "VALID"},
        {{2, 1, 3, 3, 3}, {2, 1, 3, 3, 3}, {1, 1, 1}, {0, 0, 0, 0, 0, 0}, {1, 1, 1}, 1, "SAME"},
    };
    std::uint32_t seed = 1;
    for (const auto& c : cases) {
        CAPTURE(to_string(c.x));
        CAPTURE(to_string(c.f));
        CAPTURE(c.alg);
        auto x = test::random_tensor(c.x, seed++);
        auto f = test::random_tensor(c.f, seed++);
        std::int64_t pads6[6], dil[3] = {c.dil[0], c.dil[1], c.dil[2]};
        if (c.alg == "SAME") {
            for (int i = 0; i < 3; ++i) {
                const auto in = c.x[static_cast<std::size_t>(2 + i)],
                           s = c.strides[static_cast<std::size_t>(i)];
                const auto out = (in + s - 1) / s;
                const auto total = std::max<std::int64_t>(
                    (out - 1) * s + c.f[static_cast<std::size_t>(2 + i)] - in, 0);
                pads6[2 * i] = total / 2;
                pads6[2 * i + 1] = total - total / 2;
                dil[i] = 1;
            }
        } else if (c.alg == "VALID") {
            for (auto& v : pads6) v = 0;
        } else if (c.pads.size() == 3) {
            for (int i = 0; i < 3; ++i)
                pads6[2 * i] = pads6[2 * i + 1] = c.pads[static_cast<std::size_t>(i)];
        } else {
            for (int i = 0; i < 6; ++i) pads6[i] = c.pads[static_cast<std::size_t>(i)];
        }
        shape_t out;
        auto expected = baseline(x, f, c, pads6, dil, out);
        auto r = invoke("conv3d", attrs(c), named_tensors{}.add("Input", x).add("Filter", f),
                        {{"Output", 1}});
        REQUIRE(r.get("Output").shape() == out);
        CHECK(test::max_abs_diff(r.get("Output").span<float>(), expected) < 1e-4);
    }
}

TEST_CASE("conv3d names bad attributes and shapes") {
    auto x = test::random_tensor({1, 2, 3, 3, 3}, 1);
    auto f = test::random_tensor({2, 2, 2, 2, 2}, 2);
    auto run = [&](const attr_map& a, const tensor& xx, const tensor& ff) {
        return invoke("conv3d", a, named_tensors{}.add("Input", xx).add("Filter", ff),
                      {{"Output", 1}});
    };
    conv_case c{{}, {}};
    CHECK_NOTHROW(run(attrs(c), x, f));
    auto a = attrs(c);
    a.set("strides", std::vector<std::int64_t>{1, 1});
    CHECK_THROWS_WITH_AS(run(a, x, f), doctest::Contains("strides must hold 3 values"),
                         shape_error);
    a = attrs(c);
    a.set("paddings", std::vector<std::int64_t>{1, 1, 1, 1});
    CHECK_THROWS_WITH_AS(run(a, x, f), doctest::Contains("paddings must hold 3 or 6 values"),
                         shape_error);
    a = attrs(c);
    a.set("dilations", std::vector<std::int64_t>{1, 0, 1});
    CHECK_THROWS_WITH_AS(run(a, x, f), doctest::Contains("dilations [1,0,1] must be >= 1"),
                         shape_error);
    a = attrs(c);
    a.set("groups", std::int64_t{3});
    CHECK_THROWS_WITH_AS(run(a, x, f), doctest::Contains("not divisible by groups 3"), shape_error);
    CHECK_THROWS_WITH_AS(run(attrs(c), x, test::random_tensor({2, 3, 2, 2, 2}, 2)),
                         doctest::Contains("Input channels 2"), shape_error);
    CHECK_THROWS_WITH_AS(run(attrs(c), x, test::random_tensor({2, 2, 4, 2, 2}, 2)),
                         doctest::Contains("output size 0 <= 0 along spatial dim 0"), shape_error);
    CHECK_THROWS_WITH_AS(run(attrs(c), test::random_tensor({1, 2, 3, 3}, 1), f),
                         doctest::Contains("Input must be 5-D"), shape_error);
    a = attrs(c);
    a.set("data_format", std::string("NDHWC"));
    CHECK_THROWS_WITH_AS(run(a, x, f), doctest::Contains("data_format 'NDHWC' is not supported"),
                         unsupported_error);
    a = attrs(c);
    a.set("padding_algorithm", std::string("FULL"));
    CHECK_THROWS_WITH_AS(run(a, x, f), doctest::Contains("padding_algorithm 'FULL'"),
                         unsupported_error);
}

}  // namespace ops_conv3d_test
