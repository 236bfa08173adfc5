// concat against a plain-loop baseline: several shapes, every axis (also
// negative), AxisTensor, int32 data; mismatches are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_concat_test {

namespace {
// Out index -> (input, its index) by walking the concatenated axis.
std::vector<float> baseline(const std::vector<tensor>& xs, std::size_t axis) {
    const auto& s0 = xs[0].shape();
    std::int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < axis; ++d) outer *= s0[d];
    for (std::size_t d = axis + 1; d < s0.size(); ++d) inner *= s0[d];
    std::vector<float> out;
    for (std::int64_t o = 0; o < outer; ++o)
        for (const auto& x : xs) {
            const auto len = x.shape()[axis];
            auto v = x.span<float>();
            for (std::int64_t k = 0; k < len; ++k)
                for (std::int64_t i = 0; i < inner; ++i)
                    out.push_back(v[(o * len + k) * inner + i]);
        }
    return out;
}
}  // namespace

TEST_CASE("concat matches the baseline on every axis") {
    const shape_t base{2, 3, 4};
    for (int axis = -3; axis < 3; ++axis) {
        const auto ax = static_cast<std::size_t>(axis < 0 ? axis + 3 : axis);
        for (int n : {1, 2, 3}) {
            CAPTURE(axis);
            CAPTURE(n);
            std::vector<tensor> xs;
            named_tensors in;
            shape_t expect = base;
            expect[ax] = 0;
            for (int i = 0; i < n; ++i) {
                shape_t s = base;
                s[ax] = i + 1;
                expect[ax] += s[ax];
                xs.push_back(test::random_tensor(s, 10 + i));
                in.add("X", xs.back());
            }
            attr_map a;
            a.set("axis", axis);
            auto r = invoke("concat", a, in, {{"Out", 1}});
            CHECK(r.get("Out").shape() == expect);
            CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(xs, ax)) == 0);
        }
    }
}

TEST_CASE("concat takes AxisTensor over the attribute, and any dtype") {
    auto a0 = tensor::from<std::int32_t>({2, 2}, std::vector<std::int32_t>{1, 2, 3, 4});
    auto a1 = tensor::from<std::int32_t>({2, 1}, std::vector<std::int32_t>{5, 6});
    attr_map a;
    a.set("axis", 0);
    auto r = invoke("concat", a,
                    named_tensors{}.add("X", a0).add("X", a1).add(
                        "AxisTensor", tensor::from<std::int32_t>({1}, std::vector{1})),
                    {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{2, 3});
    auto got = r.get("Out").span<std::int32_t>();
    CHECK(std::vector<std::int32_t>(got.begin(), got.end()) ==
          std::vector<std::int32_t>{1, 2, 5, 3, 4, 6});
}

TEST_CASE("concat names mismatched inputs") {
    attr_map a;
    a.set("axis", 1);
    auto x = test::random_tensor({2, 3}, 1);
    CHECK_THROWS_WITH_AS(
        invoke("concat", a, named_tensors{}.add("X", x).add("X", test::random_tensor({3, 3}, 1)),
               {{"Out", 1}}),
        doctest::Contains("differ in dim 0"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("concat", a,
               named_tensors{}.add("X", x).add(
                   "X", tensor::from<std::int32_t>({2, 1}, std::vector<std::int32_t>{1, 2})),
               {{"Out", 1}}),
        doctest::Contains("is int32"), shape_error);
    a.set("axis", 2);
    CHECK_THROWS_WITH_AS(invoke("concat", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("axis 2 is out of range"), shape_error);
}

}  // namespace ops_concat_test
