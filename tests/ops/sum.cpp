// sum against an element-wise loop: 1 to 4 inputs, float and integer; the
// first input's LoD passes to Out; mismatched shapes are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_sum_test {

TEST_CASE("sum adds its inputs element by element") {
    for (int n = 1; n <= 4; ++n) {
        named_tensors in;
        std::vector<float> expect(12, 0.f);
        for (int i = 0; i < n; ++i) {
            auto t = test::random_tensor({4, 3}, static_cast<std::uint32_t>(i + 1));
            for (std::size_t k = 0; k < 12; ++k) expect[k] += t.span<float>()[k];
            if (i == 0) t.set_lod({{0, 1, 4}});
            in.add("X", std::move(t));
        }
        auto r = invoke("sum", {}, in, {{"Out", 1}});
        CHECK(test::max_rel_diff(r.get("Out").span<float>(), expect) < 1e-6);
        CHECK(r.get("Out").lod() == lod_t{{0, 1, 4}});
    }
    auto a = tensor::from<std::int64_t>({3}, std::vector<std::int64_t>{1, 2, 3});
    auto r = invoke("sum", {}, named_tensors{}.add("X", a).add("X", a), {{"Out", 1}});
    auto s = r.get("Out").span<std::int64_t>();
    CHECK(std::vector<std::int64_t>(s.begin(), s.end()) == std::vector<std::int64_t>{2, 4, 6});
}

TEST_CASE("sum names mismatched inputs") {
    CHECK_THROWS_WITH_AS(invoke("sum", {},
                                named_tensors{}
                                    .add("X", test::random_tensor({2, 3}, 1))
                                    .add("X", test::random_tensor({3, 2}, 2)),
                                {{"Out", 1}}),
                         doctest::Contains("X #1"), shape_error);
}

}  // namespace ops_sum_test
