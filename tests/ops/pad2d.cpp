// pad2d and pad3d against plain-loop baselines: every mode, both layouts,
// asymmetric and zero paddings, the Paddings input, float64; paddings too
// large for reflect/circular, bad modes and layouts are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_pad2d_test {

namespace {
// Source index of output index o along a dim of size n padded by b before,
// or -1 for the constant: the mirror without the edge, the edge, or the wrap.
std::int64_t source(const std::string& mode, std::int64_t o, std::int64_t b, std::int64_t n) {
    std::int64_t i = o - b;
    if (mode == "constant") return (i < 0 || i >= n) ? -1 : i;
    if (mode == "reflect") {
        if (i < 0) i = -i;
        if (i >= n) i = (n - 1) - (i - (n - 1));
        return i;
    }
    if (mode == "edge" || mode == "replicate") return i < 0 ? 0 : (i >= n ? n - 1 : i);
    while (i < 0) i += n;  // circular
    return i % n;
}

// X with `k` spatial dims (layout channels first or last), pads (before, after)
// in X's dim order.
std::vector<double> baseline(const std::vector<double>& x, const shape_t& xs, bool last,
                             const std::vector<std::int64_t>& pads, const std::string& mode,
                             double value, shape_t& out) {
    const std::size_t k = xs.size() - 2;
    const std::size_t first = last ? 1 : 2;
    out = xs;
    for (std::size_t d = 0; d < k; ++d) out[first + d] += pads[2 * d] + pads[2 * d + 1];
    std::vector<double> y;
    for (std::int64_t i = 0; i < numel(out); ++i) {
        std::vector<std::int64_t> c(out.size());
        std::int64_t r = i;
        for (std::size_t d = out.size(); d-- > 0;) {
            c[d] = r % out[d];
            r /= out[d];
        }
        bool inside = true;
        for (std::size_t d = 0; d < k; ++d) {
            c[first + d] = source(mode, c[first + d], pads[2 * d], xs[first + d]);
            inside = inside && c[first + d] >= 0;
        }
        std::int64_t off = 0;
        for (std::size_t d = 0; d < xs.size(); ++d) off = off * xs[d] + c[d];
        y.push_back(inside ? x[static_cast<std::size_t>(off)] : value);
    }
    return y;
}

std::vector<double> values(const tensor& t) {
    if (t.type() == dtype::f64) {
        auto s = t.span<double>();
        return {s.begin(), s.end()};
    }
    auto s = t.span<float>();
    return {s.begin(), s.end()};
}
}  // namespace

TEST_CASE("pad2d matches the baseline") {
    std::uint32_t seed = 1;
    using pads = std::vector<std::int64_t>;
    for (const char* mode : {"constant", "reflect", "edge"})
        for (bool nhwc : {false, true})
            for (const pads& p :
                 {pads{0, 0, 0, 0}, pads{1, 2, 0, 3}, pads{2, 0, 1, 1}, pads{3, 3, 4, 4}})
                for (bool tensor_form : {false, true})
                    for (bool f64 : {false, true}) {
                        CAPTURE(mode);
                        CAPTURE(nhwc);
                        CAPTURE(to_string(p));
                        const shape_t xs = nhwc ? shape_t{2, 4, 5, 3} : shape_t{2, 3, 4, 5};
                        auto x = test::random_tensor(xs, seed++);
                        if (f64) {
                            tensor d(dtype::f64, xs);
                            for (std::int64_t i = 0; i < x.numel(); ++i)
                                d.span<double>()[i] = x.span<float>()[i];
                            x = d;
                        }
                        attr_map a;
                        a.set("mode", std::string(mode));
                        a.set("pad_value", 0.5f);
                        a.set("data_format", std::string(nhwc ? "NHWC" : "NCHW"));
                        named_tensors in;
                        in.add("X", x);
                        if (tensor_form) {
                            a.set("paddings", pads{9, 9, 9, 9});
                            in.add("Paddings",
                                   tensor::from<std::int32_t>(
                                       {4}, std::vector<std::int32_t>(p.begin(), p.end())));
                        } else {
                            a.set("paddings", p);
                        }
                        auto y = invoke("pad2d", a, in, {{"Out", 1}}).get("Out");
                        shape_t out;
                        auto expect = baseline(values(x), xs, nhwc, p, mode, 0.5, out);
                        CHECK(y.shape() == out);
                        CHECK(y.type() == x.type());
                        auto got = values(y);
                        CHECK(got == expect);
                    }
}

TEST_CASE("pad3d matches the baseline") {
    std::uint32_t seed = 100;
    using pads = std::vector<std::int64_t>;
    for (const char* mode : {"constant", "reflect", "replicate", "circular"})
        for (bool last : {false, true})
            for (const pads& p :
                 {pads{0, 0, 0, 0, 0, 0}, pads{1, 0, 2, 1, 0, 2}, pads{2, 2, 1, 1, 1, 1}})
                for (bool tensor_form : {false, true}) {
                    CAPTURE(mode);
                    CAPTURE(last);
                    CAPTURE(to_string(p));
                    const shape_t xs = last ? shape_t{1, 3, 4, 5, 2} : shape_t{1, 2, 3, 4, 5};
                    auto x = test::random_tensor(xs, seed++);
                    attr_map a;
                    a.set("mode", std::string(mode));
                    a.set("value", -2.f);
                    a.set("data_format", std::string(last ? "NDHWC" : "NCDHW"));
                    named_tensors in;
                    in.add("X", x);
                    if (tensor_form)
                        in.add("Paddings", tensor::from<std::int32_t>(
                                               {6}, std::vector<std::int32_t>(p.begin(), p.end())));
                    else
                        a.set("paddings", p);
                    auto y = invoke("pad3d", a, in, {{"Out", 1}}).get("Out");
                    // [left, right, top, bottom, front, back] -> D, H, W order.
                    const pads ordered{p[4], p[5], p[2], p[3], p[0], p[1]};
                    shape_t out;
                    auto expect = baseline(values(x), xs, last, ordered, mode, -2.0, out);
                    CHECK(y.shape() == out);
                    CHECK(values(y) == expect);
                }
}

TEST_CASE("pad2d and pad3d name bad input") {
    auto x = test::random_tensor({1, 1, 3, 3}, 1);
    attr_map a;
    a.set("mode", std::string("reflect"));
    a.set("paddings", std::vector<std::int64_t>{3, 0, 0, 0});
    CHECK_THROWS_WITH_AS(
        invoke("pad2d", a, named_tensors{}.add("X", x), {{"Out", 1}}),
        doctest::Contains("reflect paddings (3, 0) must be less than the input dim 3"),
        shape_error);
    a.set("paddings", std::vector<std::int64_t>{-1, 0, 0, 0});
    CHECK_THROWS_WITH_AS(invoke("pad2d", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("paddings must be non-negative"), shape_error);
    a.set("paddings", std::vector<std::int64_t>{1, 1});
    CHECK_THROWS_WITH_AS(invoke("pad2d", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("paddings must hold 4 values, holds 2"), shape_error);
    a.set("mode", std::string("circular"));
    CHECK_THROWS_WITH_AS(invoke("pad2d", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("mode 'circular' is not supported"), unsupported_error);
    attr_map b;
    b.set("data_format", std::string("NCDHW"));
    CHECK_THROWS_WITH_AS(invoke("pad2d", b, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("data_format 'NCDHW' is not supported"),
                         unsupported_error);
    CHECK_THROWS_WITH_AS(invoke("pad3d", {}, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("X must be 5-D"), shape_error);
    auto x5 = test::random_tensor({1, 1, 2, 2, 2}, 2);
    attr_map c;
    c.set("mode", std::string("circular"));
    c.set("paddings", std::vector<std::int64_t>{3, 0, 0, 0, 0, 0});
    CHECK_THROWS_WITH_AS(
        invoke("pad3d", c, named_tensors{}.add("X", x5), {{"Out", 1}}),
        doctest::Contains("circular paddings (3, 0) must not exceed the input dim 2"), shape_error);
    c.set("mode", std::string("edge"));
    CHECK_THROWS_WITH_AS(invoke("pad3d", c, named_tensors{}.add("X", x5), {{"Out", 1}}),
                         doctest::Contains("mode 'edge' is not supported"), unsupported_error);
    CHECK_THROWS_WITH_AS(
        invoke("pad2d", {},
               named_tensors{}.add(
                   "X", tensor::from<std::int32_t>({1, 1, 1, 1}, std::vector<std::int32_t>{1})),
               {{"Out", 1}}),
        doctest::Contains("X must be float32 or float64, got int32"), shape_error);
}

}  // namespace ops_pad2d_test
