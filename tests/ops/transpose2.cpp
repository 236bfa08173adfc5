// transpose2 / transpose against a plain-loop baseline over ranks 1..5 and
// several permutations; float32 and int64 data.
#include <algorithm>
#include <numeric>

#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_transpose2_test {

namespace {
// out[i0..ik] = x[j] where j's dim perm[d] index is i_d.
template <class T>
std::vector<T> baseline(std::span<const T> x, const shape_t& in, const std::vector<int>& perm) {
    const auto rank = in.size();
    std::vector<std::int64_t> st(rank, 1), out_shape(rank);
    for (std::size_t d = rank; d-- > 1;) st[d - 1] = st[d] * in[d];
    for (std::size_t d = 0; d < rank; ++d) out_shape[d] = in[perm[d]];
    std::vector<T> out(x.size());
    std::vector<std::int64_t> idx(rank, 0);
    for (std::size_t o = 0; o < out.size(); ++o) {
        std::int64_t rem = static_cast<std::int64_t>(o), src = 0;
        for (std::size_t d = rank; d-- > 0;) {
            idx[d] = rem % out_shape[d];
            rem /= out_shape[d];
        }
        for (std::size_t d = 0; d < rank; ++d) src += idx[d] * st[perm[d]];
        out[o] = x[src];
    }
    return out;
}
}  // namespace

TEST_CASE("transpose2 matches the baseline for every permutation of small shapes") {
    const shape_t shapes[] = {{7}, {3, 4}, {2, 3, 4}, {2, 3, 1, 5}, {2, 1, 3, 2, 2}};
    for (const auto& in : shapes) {
        std::vector<int> perm(in.size());
        std::iota(perm.begin(), perm.end(), 0);
        auto x = test::random_tensor(in, 8);
        do {
            CAPTURE(to_string(in));
            attr_map a;
            a.set("axis", perm);
            auto r =
                invoke("transpose2", a, named_tensors{}.add("X", x), {{"Out", 1}, {"XShape", 1}});
            shape_t expect(in.size());
            for (std::size_t d = 0; d < in.size(); ++d) expect[d] = in[perm[d]];
            CHECK(r.get("Out").shape() == expect);
            auto want = baseline<float>(x.span<float>(), in, perm);
            CHECK(test::max_abs_diff(r.get("Out").span<float>(), want) == 0);
            CHECK(r.get("XShape").shape().front() == 0);
        } while (std::next_permutation(perm.begin(), perm.end()));
    }
}

TEST_CASE("transpose handles int64 data and negative axes") {
    std::vector<std::int64_t> v(24);
    std::iota(v.begin(), v.end(), 100);
    auto x = tensor::from<std::int64_t>({2, 3, 4}, v);
    attr_map a;
    a.set("axis", std::vector<std::int32_t>{-1, 0, 1});
    auto r = invoke("transpose", a, named_tensors{}.add("X", x), {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{4, 2, 3});
    auto want = baseline<std::int64_t>(x.span<std::int64_t>(), {2, 3, 4}, {2, 0, 1});
    auto got = r.get("Out").span<std::int64_t>();
    CHECK(std::equal(got.begin(), got.end(), want.begin(), want.end()));
}

TEST_CASE("transpose2 rejects what is not a permutation") {
    auto x = test::random_tensor({2, 3, 4}, 1);
    attr_map a;
    a.set("axis", std::vector<std::int32_t>{0, 1});
    CHECK_THROWS_WITH_AS(invoke("transpose2", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("has rank 3"), shape_error);
    a.set("axis", std::vector<std::int32_t>{0, 1, 1});
    CHECK_THROWS_WITH_AS(invoke("transpose2", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("repeats"), shape_error);
    a.set("axis", std::vector<std::int32_t>{0, 1, 3});
    CHECK_THROWS_WITH_AS(invoke("transpose2", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("out of range"), shape_error);
}

}  // namespace ops_transpose2_test
