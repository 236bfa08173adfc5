// pool3d (NCDHW) against a plain loop written here from Paddle's Pool3dFunctor
// formulas: max and avg, exclusive or not, ceil_mode, 3- and 6-value paddings,
// SAME / VALID, global_pooling and adaptive; bad attributes are named.
#include <cfloat>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_pool3d_test {

namespace {
struct pool_case {
    shape_t x;
    std::string type = "max";
    std::vector<std::int64_t> k{2, 2, 2}, strides{1, 1, 1}, pads{0, 0, 0};
    bool exclusive = true, ceil = false, global = false, adaptive = false;
    std::string alg = "EXPLICIT";
};

attr_map attrs(const pool_case& c) {
    attr_map a;
    a.set("pooling_type", c.type);
    a.set("ksize", c.k);
    a.set("strides", c.strides);
    a.set("paddings", c.pads);
    a.set("exclusive", c.exclusive);
    a.set("ceil_mode", c.ceil);
    a.set("global_pooling", c.global);
    a.set("adaptive", c.adaptive);
    a.set("padding_algorithm", c.alg);
    return a;
}

std::vector<float> baseline(const tensor& x, const pool_case& c, shape_t& out) {
    const auto& s = x.shape();
    std::int64_t in[3] = {s[2], s[3], s[4]}, k[3], st[3], p0[3], p1[3], o[3];
    for (int i = 0; i < 3; ++i) {
        const auto u = static_cast<std::size_t>(i);
        k[i] = c.global ? in[i] : c.k[u];
        st[i] = c.strides[u];
        if (c.pads.size() == 3)
            p0[i] = p1[i] = c.pads[u];
        else
            p0[i] = c.pads[2 * u], p1[i] = c.pads[2 * u + 1];
        if (c.alg == "VALID" || c.global || c.adaptive) p0[i] = p1[i] = 0;
        if (c.alg == "SAME" && !c.global && !c.adaptive) {
            const auto outs = (in[i] + st[i] - 1) / st[i];
            const auto tot = std::max<std::int64_t>((outs - 1) * st[i] + k[i] - in[i], 0);
            p0[i] = tot / 2;
            p1[i] = tot - tot / 2;
        }
        if (c.adaptive)
            o[i] = c.k[u];
        else if (c.global)
            o[i] = 1;
        else
            o[i] = (in[i] - k[i] + p0[i] + p1[i] + (c.ceil ? st[i] - 1 : 0)) / st[i] + 1;
    }
    out = {s[0], s[1], o[0], o[1], o[2]};
    auto X = x.span<float>();
    std::vector<float> y;
    for (std::int64_t pc = 0; pc < s[0] * s[1]; ++pc)
        for (std::int64_t a = 0; a < o[0]; ++a)
            for (std::int64_t b = 0; b < o[1]; ++b)
                for (std::int64_t e = 0; e < o[2]; ++e) {
                    const std::int64_t idx[3] = {a, b, e};
                    std::int64_t lo[3], hi[3], vol = 1;
                    for (int i = 0; i < 3; ++i) {
                        if (c.adaptive) {
                            lo[i] = idx[i] * in[i] / o[i];
                            hi[i] = ((idx[i] + 1) * in[i] + o[i] - 1) / o[i];
                            continue;
                        }
                        const std::int64_t start = idx[i] * st[i] - p0[i];
                        const std::int64_t end = std::min(start + k[i], in[i] + p0[i]);
                        vol *= end - start;
                        lo[i] = std::max<std::int64_t>(start, 0);
                        hi[i] = std::min(end, in[i]);
                    }
                    if (c.exclusive || c.adaptive)
                        vol = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
                    double acc = c.type == "max" ? -FLT_MAX : 0.0;
                    for (auto d = lo[0]; d < hi[0]; ++d)
                        for (auto h = lo[1]; h < hi[1]; ++h)
                            for (auto w = lo[2]; w < hi[2]; ++w) {
                                const double v = X[static_cast<std::size_t>(
                                    ((pc * in[0] + d) * in[1] + h) * in[2] + w)];
                                acc = c.type == "max" ? std::max(acc, v) : acc + v;
                            }
                    y.push_back(float(c.type == "max" ? acc : acc / double(vol)));
                }
    return y;
}
}  // namespace

TEST_CASE("pool3d matches the baseline") {
    std::vector<pool_case> cases;
    for (std::string type : {"max", "avg"})
        for (bool excl : {true, false}) {
            cases.push_back({{2, 3, 4, 5, 6}, type, {2, 2, 2}, {2, 2, 2}, {0, 0, 0}, excl});
            cases.push_back({{1, 2, 5, 5, 7}, type, {3, 2, 3}, {2, 1, 2}, {1, 0, 1}, excl});
            cases.push_back(
                {{1, 2, 5, 6, 7}, type, {3, 3, 2}, {2, 2, 2}, {1, 0, 1, 1, 0, 1}, excl, true});
            cases.push_back({{1, 2, 4, 5, 6},
                             type,
                             {3, 3, 3},
                             {2, 2, 2},
                             {0, 0, 0},
                             excl,
                             false,
                             false,
                             false,
                             "SAME"});
            cases.push_back({{1, 2, 4, 5, 6},
                             type,
                             {3, 3, 3},
                             {1, 2, 1},
                             {5, 5, 5},
                             excl,
                             false,
                             false,
                             false,
                             "VALID"});
            cases.push_back(
                {{2, 2, 3, 4, 5}, type, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, excl, false, true});
            cases.push_back(
                {{1, 3, 5, 7, 6}, type, {2, 3, 4}, {1, 1, 1}, {0, 0, 0}, excl, false, false, true});
            cases.push_back({{1, 1, 1, 1, 1}, type, {1, 1, 1}, {1, 1, 1}, {0, 0, 0}, excl});
        }
    std::uint32_t seed = 1;
    for (const auto& c : cases) {
        CAPTURE(to_string(c.x));
        CAPTURE(c.type);
        CAPTURE(c.exclusive);
        CAPTURE(c.ceil);
        CAPTURE(c.global);
        CAPTURE(c.adaptive);
        CAPTURE(c.alg);
        auto x = test::random_tensor(c.x, seed++);
        shape_t out;
        auto expected = baseline(x, c, out);
        auto r = invoke("pool3d", attrs(c), named_tensors{}.add("X", x), {{"Out", 1}});
        REQUIRE(r.get("Out").shape() == out);
        CHECK(test::max_abs_diff(r.get("Out").span<float>(), expected) < 1e-5);
    }
}

TEST_CASE("pool3d names bad attributes") {
    auto x = test::random_tensor({1, 2, 3, 3, 3}, 1);
    pool_case c{{}};
    auto run = [&](const attr_map& a) {
        return invoke("pool3d", a, named_tensors{}.add("X", x), {{"Out", 1}});
    };
    CHECK_NOTHROW(run(attrs(c)));
    auto a = attrs(c);
    a.set("ksize", std::vector<std::int64_t>{2, 2});
    CHECK_THROWS_WITH_AS(run(a), doctest::Contains("ksize must hold 3 values"), shape_error);
    a = attrs(c);
    a.set("ksize", std::vector<std::int64_t>{4, 1, 1});
    CHECK_THROWS_WITH_AS(run(a), doctest::Contains("output size 0 <= 0 along spatial dim 0"),
                         shape_error);
    a = attrs(c);
    a.set("paddings", std::vector<std::int64_t>{-1, 0, 0});
    CHECK_THROWS_WITH_AS(run(a), doctest::Contains("negative padding"), shape_error);
    a = attrs(c);
    a.set("pooling_type", std::string("lp"));
    CHECK_THROWS_WITH_AS(run(a), doctest::Contains("pooling_type 'lp' is not supported"),
                         unsupported_error);
    CHECK_THROWS_WITH_AS(
        invoke("pool3d", attrs(c), named_tensors{}.add("X", test::random_tensor({1, 2, 3, 3}, 1)),
               {{"Out", 1}}),
        doctest::Contains("X must be 5-D"), shape_error);
}

}  // namespace ops_pool3d_test
