// gather_nd against a plain-loop baseline: index depths 0 to rank, batched
// index shapes, int32 and int64 indices, empty indices; out-of-range
// coordinates and a too-deep index are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_gather_nd_test {

TEST_CASE("gather_nd matches the baseline for every index depth") {
    std::uint32_t seed = 1;
    const shape_t s{3, 4, 2};
    auto x = test::random_tensor(s, 7);
    for (std::int64_t k = 0; k <= 3; ++k)
        for (const shape_t& batch : {shape_t{}, shape_t{5}, shape_t{2, 3}, shape_t{0}})
            for (bool i64 : {false, true}) {
                CAPTURE(k);
                CAPTURE(to_string(batch));
                shape_t is = batch;
                is.push_back(k);
                const auto rows = numel(batch);
                std::vector<std::int64_t> coords;
                std::mt19937 rng(seed++);
                for (std::int64_t r = 0; r < rows; ++r)
                    for (std::int64_t j = 0; j < k; ++j)
                        coords.push_back(static_cast<std::int64_t>(rng() % s[j]));
                tensor index =
                    i64 ? tensor::from<std::int64_t>(is, coords)
                        : tensor::from<std::int32_t>(
                              is, std::vector<std::int32_t>(coords.begin(), coords.end()));
                auto r = invoke("gather_nd", {}, named_tensors{}.add("X", x).add("Index", index),
                                {{"Out", 1}});
                shape_t e = batch;
                e.insert(e.end(), s.begin() + k, s.end());
                CHECK(r.get("Out").shape() == e);
                std::int64_t slice = 1;
                for (auto d = static_cast<std::size_t>(k); d < 3; ++d) slice *= s[d];
                std::vector<float> expect;
                for (std::int64_t row = 0; row < rows; ++row) {
                    std::int64_t off = 0;
                    for (std::int64_t j = 0; j < k; ++j) off = off * s[j] + coords[row * k + j];
                    for (std::int64_t i = 0; i < slice; ++i)
                        expect.push_back(x.span<float>()[off * slice + i]);
                }
                CHECK(test::max_abs_diff(r.get("Out").span<float>(), expect) == 0);
            }
}

TEST_CASE("gather_nd names bad input") {
    auto x = test::random_tensor({3, 4}, 1);
    auto run = [&](tensor index) {
        return invoke("gather_nd", {}, named_tensors{}.add("X", x).add("Index", std::move(index)),
                      {{"Out", 1}});
    };
    CHECK_THROWS_WITH_AS(
        run(tensor::from<std::int64_t>({2, 2}, std::vector<std::int64_t>{0, 1, 2, 4})),
        doctest::Contains("Index value 4 (row 1, coordinate 1) is out of range [0, 4)"),
        shape_error);
    CHECK_THROWS_WITH_AS(run(tensor::from<std::int32_t>({1, 1}, std::vector<std::int32_t>{-1})),
                         doctest::Contains("Index value -1 (row 0, coordinate 0) is out of range"),
                         shape_error);
    CHECK_THROWS_WITH_AS(
        run(tensor::from<std::int32_t>({1, 3}, std::vector<std::int32_t>{0, 0, 0})),
        doctest::Contains("the last dim of Index (3) is more than the rank of X (2)"), shape_error);
    CHECK_THROWS_WITH_AS(run(test::random_tensor({1, 1}, 3)),
                         doctest::Contains("Index must be int32 or int64"), shape_error);
}

}  // namespace ops_gather_nd_test
