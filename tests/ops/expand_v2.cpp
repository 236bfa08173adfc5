// expand_v2 and expand_as_v2 against a plain-loop baseline: new leading dims,
// -1 (keep X's dim), size-1 dims expanded, the Shape, expand_shapes_tensor and
// Y inputs; bad targets are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_expand_v2_test {

namespace {
// Out[c] = X[c'] with c' the trailing coordinates, 0 where X's dim is 1.
std::vector<float> baseline(const tensor& x, const shape_t& out) {
    const auto& in = x.shape();
    const auto diff = out.size() - in.size();
    std::vector<float> v;
    for (std::int64_t i = 0; i < numel(out); ++i) {
        std::vector<std::int64_t> c(out.size());
        std::int64_t rest = i;
        for (std::size_t d = out.size(); d-- > 0;) {
            c[d] = rest % out[d];
            rest /= out[d];
        }
        std::int64_t src = 0;
        for (std::size_t d = 0; d < in.size(); ++d)
            src = src * in[d] + (in[d] == 1 ? 0 : c[d + diff]);
        v.push_back(x.span<float>()[static_cast<std::size_t>(src)]);
    }
    return v;
}
}  // namespace

TEST_CASE("expand_v2 and expand_as_v2 match the baseline") {
    std::uint32_t seed = 1;
    using vec = std::vector<std::int64_t>;
    struct c {
        shape_t x;
        vec target;
        shape_t out;
    };
    for (const auto& row : std::vector<c>{{{3}, {3}, {3}},
                                          {{1}, {4}, {4}},
                                          {{3}, {2, 3}, {2, 3}},
                                          {{3}, {2, -1}, {2, 3}},
                                          {{2, 1}, {2, 5}, {2, 5}},
                                          {{2, 1}, {-1, 5}, {2, 5}},
                                          {{1, 3, 1}, {2, 4, 3, 2}, {2, 4, 3, 2}},
                                          {{}, {2, 2}, {2, 2}},
                                          {{2, 1}, {2, 0 + 1}, {2, 1}},
                                          {{0, 1}, {-1, 3}, {0, 3}}}) {
        const shape_t& xs = row.x;
        const vec& target = row.target;
        const shape_t& out = row.out;
        CAPTURE(to_string(xs));
        CAPTURE(to_string(target));
        auto x = test::random_tensor(xs, seed++);
        const auto expect = baseline(x, out);
        for (int form = 0; form < 5; ++form) {
            CAPTURE(form);
            attr_map a;
            named_tensors in;
            in.add("X", x);
            std::string type = form < 3 ? "expand_v2" : "expand_as_v2";
            if (form == 0) a.set("shape", target);
            if (form == 1) {
                a.set("shape", vec(target.size(), 9));  // the input wins
                in.add("Shape", tensor::from<std::int32_t>(
                                    {static_cast<std::int64_t>(target.size())},
                                    std::vector<std::int32_t>(target.begin(), target.end())));
            }
            if (form == 2)
                for (auto v : target)
                    in.add("expand_shapes_tensor",
                           tensor::from<std::int32_t>(
                               {1}, std::vector<std::int32_t>{static_cast<std::int32_t>(v)}));
            if (form == 3) a.set("target_shape", target);
            if (form == 4) {
                // Paddle's static expand_as: target_shape is Y's shape, -1 for
                // an unknown dim, and Y gives the real one.
                vec t(out.begin(), out.end());
                if (!t.empty()) t[0] = -1;
                a.set("target_shape", t);
                in.add("Y", test::random_tensor(out, 3));
            }
            auto r = invoke(type, a, in, {{"Out", 1}});
            CHECK(r.get("Out").shape() == out);
            CHECK(test::max_abs_diff(r.get("Out").span<float>(), expect) == 0);
        }
    }
}

TEST_CASE("expand_v2 keeps int32 values") {
    auto x = tensor::from<std::int32_t>({2, 1}, std::vector<std::int32_t>{1, 2});
    attr_map a;
    a.set("shape", std::vector<std::int64_t>{2, 3});
    auto r = invoke("expand_v2", a, named_tensors{}.add("X", x), {{"Out", 1}});
    auto v = r.get("Out").span<std::int32_t>();
    CHECK(std::vector<std::int32_t>(v.begin(), v.end()) ==
          std::vector<std::int32_t>{1, 1, 1, 2, 2, 2});
}

TEST_CASE("expand_v2 and expand_as_v2 name bad input") {
    auto x = test::random_tensor({2, 3}, 1);
    auto run = [&](std::vector<std::int64_t> shape) {
        attr_map a;
        a.set("shape", shape);
        return invoke("expand_v2", a, named_tensors{}.add("X", x), {{"Out", 1}});
    };
    CHECK_THROWS_WITH_AS(run({2, 4}), doctest::Contains("X dim 1 is 3, cannot expand to 4"),
                         shape_error);
    CHECK_THROWS_WITH_AS(run({3}), doctest::Contains("has fewer dims than X"), shape_error);
    CHECK_THROWS_WITH_AS(
        run({-1, 2, 3}),
        doctest::Contains("target dim 0 is -1: a dim X does not have must be positive"),
        shape_error);
    CHECK_THROWS_WITH_AS(run({2, 0}), doctest::Contains("target dim 1 is 0"), shape_error);
    CHECK_THROWS_WITH_AS(run({2, -2}), doctest::Contains("target dim 1 is -2"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("expand_as_v2", {}, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("needs target_shape or an input Y"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("expand_as_v2", {},
               named_tensors{}.add("X", x).add("Y", test::random_tensor({2, 2}, 2)), {{"Out", 1}}),
        doctest::Contains("X dim 1 is 3, cannot expand to 2"), shape_error);
}

}  // namespace ops_expand_v2_test
