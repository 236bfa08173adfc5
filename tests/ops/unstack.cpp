// unstack against a plain-loop baseline: every axis (also negative), size-1
// and empty dims, int32 data; a wrong num or output count and bad axes are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_unstack_test {

TEST_CASE("unstack matches the baseline on every axis") {
    std::uint32_t seed = 1;
    for (const shape_t& s : {shape_t{3}, shape_t{2, 3}, shape_t{3, 1, 4}, shape_t{2, 0, 3}}) {
        const auto rank = static_cast<int>(s.size());
        for (int axis = -rank; axis < rank; ++axis) {
            const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
            CAPTURE(to_string(s));
            CAPTURE(axis);
            auto x = test::random_tensor(s, seed++);
            const auto n = s[ax];
            attr_map a;
            a.set("axis", axis);
            a.set("num", n);
            auto r = invoke("unstack", a, named_tensors{}.add("X", x),
                            {{"Y", static_cast<std::size_t>(n)}});
            std::int64_t outer = 1, inner = 1;
            for (std::size_t d = 0; d < s.size(); ++d)
                if (d != ax) (d < ax ? outer : inner) *= s[d];
            shape_t e = s;
            e.erase(e.begin() + static_cast<std::ptrdiff_t>(ax));
            for (std::int64_t k = 0; k < n; ++k) {
                std::vector<float> expect;
                for (std::int64_t o = 0; o < outer; ++o)
                    for (std::int64_t i = 0; i < inner; ++i)
                        expect.push_back(x.span<float>()[(o * n + k) * inner + i]);
                const auto& y = r.get("Y", static_cast<std::size_t>(k));
                CHECK(y.shape() == e);
                CHECK(test::max_abs_diff(y.span<float>(), expect) == 0);
            }
        }
    }
}

TEST_CASE("unstack of int32 rows; num defaults to the dim") {
    auto x = tensor::from<std::int32_t>({2, 2}, std::vector<std::int32_t>{1, 2, 3, 4});
    auto r = invoke("unstack", {}, named_tensors{}.add("X", x), {{"Y", 2}});
    auto y1 = r.get("Y", 1).span<std::int32_t>();
    CHECK(r.get("Y", 1).shape() == shape_t{2});
    CHECK(std::vector<std::int32_t>(y1.begin(), y1.end()) == std::vector<std::int32_t>{3, 4});
}

TEST_CASE("unstack names bad input") {
    auto x = test::random_tensor({2, 3}, 1);
    attr_map a;
    a.set("axis", 1);
    CHECK_THROWS_WITH_AS(invoke("unstack", a, named_tensors{}.add("X", x), {{"Y", 2}}),
                         doctest::Contains("dim 1 of X is 3 but the op has 2 outputs Y"),
                         shape_error);
    a.set("num", 2);
    CHECK_THROWS_WITH_AS(invoke("unstack", a, named_tensors{}.add("X", x), {{"Y", 3}}),
                         doctest::Contains("num is 2 but the op has 3 outputs Y"), shape_error);
    a.set("axis", -3);
    CHECK_THROWS_WITH_AS(invoke("unstack", a, named_tensors{}.add("X", x), {{"Y", 2}}),
                         doctest::Contains("axis -3 is out of range for rank 2"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("unstack", {},
               named_tensors{}.add("X", tensor::from<float>({}, std::vector<float>{1})),
               {{"Y", 1}}),
        doctest::Contains("X must have at least one dim"), shape_error);
}

}  // namespace ops_unstack_test
