#include "litegraph/ops/cumsum.hpp"

#include <cmath>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_cumsum_test {

namespace {
// Plain baseline: each output is the sum of the elements before it (or after
// it, with reverse) along the axis, itself included unless exclusive.
template <class T>
std::vector<T> baseline(const std::vector<T>& x, std::int64_t outer, std::int64_t n,
                        std::int64_t inner, bool exclusive, bool reverse) {
    std::vector<T> y(x.size());
    for (std::int64_t a = 0; a < outer; ++a)
        for (std::int64_t b = 0; b < inner; ++b)
            for (std::int64_t i = 0; i < n; ++i) {
                double s = 0;
                for (std::int64_t j = 0; j < n; ++j) {
                    const bool before = reverse ? j > i : j < i;
                    if (before || (!exclusive && j == i))
                        s += static_cast<double>(
                            x[static_cast<std::size_t>((a * n + j) * inner + b)]);
                }
                y[static_cast<std::size_t>((a * n + i) * inner + b)] = static_cast<T>(s);
            }
    return y;
}

attr_map cumsum_attrs(std::int64_t axis, bool flatten, bool exclusive, bool reverse) {
    attr_map a;
    a.set("axis", axis);
    a.set("flatten", flatten);
    a.set("exclusive", exclusive);
    a.set("reverse", reverse);
    return a;
}

template <class T>
void check_shapes(std::uint32_t seed) {
    for (const shape_t& s : {shape_t{7}, shape_t{2, 3, 4}, shape_t{1, 5}, shape_t{3, 1, 2},
                             shape_t{0, 3}, shape_t{2, 0}})
        for (std::int64_t axis = -static_cast<std::int64_t>(s.size());
             axis < static_cast<std::int64_t>(s.size()); ++axis)
            for (bool flatten : {false, true})
                for (bool exclusive : {false, true})
                    for (bool reverse : {false, true}) {
                        CAPTURE(to_string(s));
                        CAPTURE(axis);
                        CAPTURE(flatten);
                        CAPTURE(exclusive);
                        CAPTURE(reverse);
                        tensor x(dtype_v<T>, s);
                        std::mt19937 rng(seed++);
                        std::uniform_int_distribution<int> d(-9, 9);
                        std::vector<T> xs;
                        for (auto& v : x.span<T>()) {
                            v = static_cast<T>(d(rng)) /
                                static_cast<T>(std::is_integral_v<T> ? 1 : 4);
                            xs.push_back(v);
                        }
                        auto out = invoke("cumsum", cumsum_attrs(axis, flatten, exclusive, reverse),
                                          named_tensors{}.add("X", x), {{"Out", 1}})
                                       .get("Out");
                        std::int64_t outer = 1, n = x.numel(), inner = 1;
                        if (!flatten) {
                            const auto ax =
                                axis < 0 ? axis + static_cast<std::int64_t>(s.size()) : axis;
                            for (std::int64_t i = 0; i < ax; ++i)
                                outer *= s[static_cast<std::size_t>(i)];
                            n = s[static_cast<std::size_t>(ax)];
                            for (auto i = static_cast<std::size_t>(ax) + 1; i < s.size(); ++i)
                                inner *= s[i];
                            REQUIRE(out.shape() == s);
                        } else {
                            REQUIRE(out.shape() == shape_t{x.numel()});
                        }
                        auto expect = baseline<T>(xs, outer, n, inner, exclusive, reverse);
                        auto got = out.template span<T>();
                        CHECK(std::vector<T>(got.begin(), got.end()) == expect);
                    }
}
}  // namespace

TEST_CASE("cumsum matches the baseline over shapes, axes, flatten, exclusive and reverse") {
    // Values in quarters: float sums are exact, so the orders of summation agree.
    check_shapes<float>(1);
    check_shapes<double>(1000);
    check_shapes<std::int32_t>(2000);
    check_shapes<std::int64_t>(3000);
}

TEST_CASE("cumsum: defaults, 0-D, integer wrap and named errors") {
    auto x = tensor::from<float>({2, 3}, std::vector<float>{1, 2, 3, 4, 5, 6});
    auto d = invoke("cumsum", {}, named_tensors{}.add("X", x), {{"Out", 1}}).get("Out");
    CHECK(std::vector<float>(d.span<float>().begin(), d.span<float>().end()) ==
          std::vector<float>{1, 3, 6, 4, 9, 15});  // axis -1
    auto z = tensor::from<float>({}, std::vector<float>{2.5f});
    auto zo = invoke("cumsum", {}, named_tensors{}.add("X", z), {{"Out", 1}}).get("Out");
    CHECK(zo.shape() == shape_t{});
    CHECK(zo.span<float>()[0] == 2.5f);
    auto big = tensor::from<std::int32_t>({2}, std::vector<std::int32_t>{INT32_MAX, 1});
    auto w = invoke("cumsum", {}, named_tensors{}.add("X", big), {{"Out", 1}}).get("Out");
    CHECK(w.span<std::int32_t>()[1] == INT32_MIN);
    CHECK_THROWS_WITH_AS(invoke("cumsum", cumsum_attrs(2, false, false, false),
                                named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("op cumsum ('Out'): axis 2 is out of range for rank 2"),
                         shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("cumsum", {}, named_tensors{}.add("X", tensor(dtype::boolean, {3})), {{"Out", 1}}),
        doctest::Contains("X of dtype bool is not supported"), shape_error);
}

}  // namespace ops_cumsum_test
