// transpose2 / transpose against a plain-loop baseline over ranks 1..5 and
// several permutations; float32 and int64 data.  The firmware form (up to 6
// dims) against the runtime op and the baseline, and the runtime's 7-D path.
#include <algorithm>
#include <numeric>
#include <random>

#include "firmware_form.hpp"
#include "litegraph/ops/invoke.hpp"
#include "litegraph/ops/transpose2.hpp"
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

TEST_CASE("transpose2's firmware form equals the runtime op, ranks 0..6, 1 to 8 byte elements") {
    std::mt19937 rng(61);
    const shape_t shapes[] = {{},           {5},          {3, 4},          {2, 3, 4},
                              {4, 1, 3},    {2, 3, 1, 5}, {2, 1, 3, 2, 2}, {2, 3, 2, 1, 2, 3},
                              {1, 40, 1, 2}};
    const dtype types[] = {dtype::f32, dtype::i64, dtype::i8, dtype::f16};
    for (const auto& in : shapes)
        for (int round = 0; round < 6; ++round) {
            std::vector<int> perm(in.size());
            std::iota(perm.begin(), perm.end(), 0);
            std::shuffle(perm.begin(), perm.end(), rng);
            const dtype t = types[round % 4];
            CAPTURE(to_string(in));
            CAPTURE(name_of(t));
            // Random bytes, or random floats to compare with the baseline.
            tensor x = t == dtype::f32 ? test::random_tensor(in, rng()) : tensor(t, in);
            auto* bytes = reinterpret_cast<unsigned char*>(x.data());
            for (std::uint64_t i = 0; t != dtype::f32 && i < x.bytes(); ++i)
                bytes[i] = static_cast<unsigned char>(rng());
            attr_map a;
            a.set("axis", perm);
            const auto in_x = named_tensors{}.add("X", x);
            const auto r = invoke("transpose2", a, in_x, {{"Out", 1}, {"XShape", 1}});
            const auto f = test::run_firmware_form<ops::transpose2>("transpose2", a, in_x,
                                                                    {{"Out", 1}, {"XShape", 1}});
            CHECK(test::same_tensor_bytes(f, r.get("Out")));
            if (t == dtype::f32) {
                auto want = baseline<float>(x.span<float>(), in, perm);
                CHECK(test::max_abs_diff(f.span<float>(), want) == 0);
            }
        }
}

TEST_CASE("transpose2 beyond 6 dims: the runtime op, no firmware form") {
    const shape_t in{2, 1, 2, 3, 1, 2, 2};
    const std::vector<int> perm{6, 0, 5, 1, 4, 2, 3};
    auto x = test::random_tensor(in, 5);
    attr_map a;
    a.set("axis", perm);
    const auto in_x = named_tensors{}.add("X", x);
    const auto r = invoke("transpose2", a, in_x, {{"Out", 1}});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(),
                             baseline<float>(x.span<float>(), in, perm)) == 0);
    CHECK_THROWS_WITH_AS(
        test::run_firmware_form<ops::transpose2>("transpose2", a, in_x, {{"Out", 1}}),
        doctest::Contains("at most 6"), unsupported_error);
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
