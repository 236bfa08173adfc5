// stack against a plain-loop baseline: odd shapes, every axis (also negative),
// 1 to 3 inputs, scalars (the Paddle 3.x recognisers stack int64 shape values);
// mismatched inputs and bad axes are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_stack_test {

namespace {
// Y index (o, k, i) with o over X's dims before `axis`, k the input, i the rest.
std::vector<float> baseline(const std::vector<tensor>& xs, std::size_t axis) {
    const auto& s = xs[0].shape();
    std::int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < s.size(); ++d) (d < axis ? outer : inner) *= s[d];
    std::vector<float> out;
    for (std::int64_t o = 0; o < outer; ++o)
        for (const auto& x : xs)
            for (std::int64_t i = 0; i < inner; ++i) out.push_back(x.span<float>()[o * inner + i]);
    return out;
}
}  // namespace

TEST_CASE("stack matches the baseline on every axis") {
    std::uint32_t seed = 1;
    for (const shape_t& s :
         {shape_t{}, shape_t{5}, shape_t{2, 3}, shape_t{3, 1, 4}, shape_t{2, 0}}) {
        const auto rank = static_cast<int>(s.size());
        for (int axis = -(rank + 1); axis <= rank; ++axis) {
            const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank + 1 : axis);
            for (int n : {1, 2, 3}) {
                CAPTURE(to_string(s));
                CAPTURE(axis);
                CAPTURE(n);
                std::vector<tensor> xs;
                named_tensors in;
                for (int i = 0; i < n; ++i) {
                    xs.push_back(test::random_tensor(s, seed++));
                    in.add("X", xs.back());
                }
                attr_map a;
                a.set("axis", axis);
                auto r = invoke("stack", a, in, {{"Y", 1}});
                shape_t expect = s;
                expect.insert(expect.begin() + static_cast<std::ptrdiff_t>(ax), n);
                CHECK(r.get("Y").shape() == expect);
                CHECK(test::max_abs_diff(r.get("Y").span<float>(), baseline(xs, ax)) == 0);
            }
        }
    }
}

TEST_CASE("stack of int64 scalars is a shape vector; axis defaults to 0") {
    named_tensors in;
    for (std::int64_t v : {1, -1, 8, 120})
        in.add("X", tensor::from<std::int64_t>({}, std::vector<std::int64_t>{v}));
    auto r = invoke("stack", {}, in, {{"Y", 1}});
    REQUIRE(r.get("Y").shape() == shape_t{4});
    auto got = r.get("Y").span<std::int64_t>();
    CHECK(std::vector<std::int64_t>(got.begin(), got.end()) ==
          std::vector<std::int64_t>{1, -1, 8, 120});
}

TEST_CASE("stack names bad input") {
    auto x = test::random_tensor({2, 3}, 1);
    CHECK_THROWS_WITH_AS(
        invoke("stack", {}, named_tensors{}.add("X", x).add("X", test::random_tensor({3, 2}, 2)),
               {{"Y", 1}}),
        doctest::Contains("X #1 ('X') has shape [3,2], X #0 has shape [2,3]"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("stack", {},
               named_tensors{}.add("X", x).add(
                   "X", tensor::from<std::int32_t>({2, 3}, std::vector<std::int32_t>(6, 1))),
               {{"Y", 1}}),
        doctest::Contains("is int32, X #0 is float32"), shape_error);
    attr_map a;
    a.set("axis", 3);
    CHECK_THROWS_WITH_AS(invoke("stack", a, named_tensors{}.add("X", x), {{"Y", 1}}),
                         doctest::Contains("axis 3 is out of range for rank 3"), shape_error);
    a.set("axis", -4);
    CHECK_THROWS_WITH_AS(invoke("stack", a, named_tensors{}.add("X", x), {{"Y", 1}}),
                         doctest::Contains("axis -4 is out of range"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("stack", {}, named_tensors{}, {{"Y", 1}}),
                         doctest::Contains("needs at least one input X"), shape_error);
}

}  // namespace ops_stack_test
