// gather against a plain-loop baseline: every axis (also negative, and from
// the Axis input), int32 and int64 indices of shapes [N], [N, 1] and 0-D,
// repeated and empty indices, int64 data; out-of-range indices and bad
// shapes are named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_gather_test {

namespace {
template <class I>
tensor ids(shape_t s, std::vector<I> v) {
    return tensor::from<I>(std::move(s), v);
}
std::vector<float> baseline(const tensor& x, std::size_t axis,
                            const std::vector<std::int64_t>& idx) {
    const auto& s = x.shape();
    std::int64_t outer = 1, inner = 1;
    for (std::size_t d = 0; d < s.size(); ++d)
        if (d != axis) (d < axis ? outer : inner) *= s[d];
    std::vector<float> out;
    for (std::int64_t o = 0; o < outer; ++o)
        for (auto k : idx)
            for (std::int64_t i = 0; i < inner; ++i)
                out.push_back(x.span<float>()[(o * s[axis] + k) * inner + i]);
    return out;
}
}  // namespace

TEST_CASE("gather matches the baseline on every axis and index form") {
    std::uint32_t seed = 1;
    for (const shape_t& s : {shape_t{5}, shape_t{3, 4}, shape_t{2, 3, 4}, shape_t{4, 1, 0}}) {
        const auto rank = static_cast<int>(s.size());
        for (int axis = -rank; axis < rank; ++axis) {
            const auto ax = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
            const auto dim = s[ax];
            if (dim == 0) continue;
            std::vector<std::vector<std::int64_t>> lists{
                {0}, {dim - 1, 0}, {0, dim - 1, dim - 1, 0}, {}};
            for (const auto& idx : lists)
                for (int form = 0; form < 5; ++form) {
                    CAPTURE(to_string(s));
                    CAPTURE(axis);
                    CAPTURE(form);
                    CAPTURE(idx.size());
                    auto x = test::random_tensor(s, seed++);
                    attr_map a;
                    named_tensors in;
                    in.add("X", x);
                    const auto n = static_cast<std::int64_t>(idx.size());
                    std::vector<std::int32_t> idx32(idx.begin(), idx.end());
                    if (form == 0) in.add("Index", ids<std::int64_t>({n}, idx));
                    if (form == 1) in.add("Index", ids<std::int32_t>({n}, idx32));
                    if (form == 2) in.add("Index", ids<std::int32_t>({n, 1}, idx32));
                    if (form == 3) {
                        in.add("Index", ids<std::int64_t>({n}, idx));
                        in.add("Axis", ids<std::int32_t>({1}, {axis}));
                        a.set("axis", 99);  // the Axis input wins
                    } else {
                        a.set("axis", axis);
                    }
                    if (form == 4) {
                        if (n != 1) continue;
                        in.add("Index", ids<std::int64_t>({}, idx));
                    }
                    auto r = invoke("gather", a, in, {{"Out", 1}});
                    shape_t e = s;
                    if (form == 4)
                        e.erase(e.begin() + static_cast<std::ptrdiff_t>(ax));
                    else
                        e[ax] = n;
                    CHECK(r.get("Out").shape() == e);
                    CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(x, ax, idx)) ==
                          0);
                }
        }
    }
}

TEST_CASE("gather keeps int64 values") {
    auto x = ids<std::int64_t>({3, 2}, {1, 2, 3, 4, 5, 6});
    auto r = invoke("gather", {},
                    named_tensors{}.add("X", x).add("Index", ids<std::int32_t>({2}, {2, 0})),
                    {{"Out", 1}});
    auto v = r.get("Out").span<std::int64_t>();
    CHECK(std::vector<std::int64_t>(v.begin(), v.end()) == std::vector<std::int64_t>{5, 6, 1, 2});
}

TEST_CASE("gather names bad input") {
    auto x = test::random_tensor({3, 4}, 1);
    auto in = [&](tensor index) {
        return named_tensors{}.add("X", x).add("Index", std::move(index));
    };
    CHECK_THROWS_WITH_AS(invoke("gather", {}, in(ids<std::int64_t>({2}, {1, 3})), {{"Out", 1}}),
                         doctest::Contains("Index[1] = 3 is out of range [0, 3) of dim 0 of X"),
                         shape_error);
    CHECK_THROWS_WITH_AS(invoke("gather", {}, in(ids<std::int32_t>({1}, {-1})), {{"Out", 1}}),
                         doctest::Contains("Index[0] = -1 is out of range"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("gather", {}, in(test::random_tensor({2}, 2)), {{"Out", 1}}),
                         doctest::Contains("Index must be int32 or int64, got float32"),
                         shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("gather", {}, in(ids<std::int32_t>({2, 2}, {0, 1, 1, 0})), {{"Out", 1}}),
        doctest::Contains("Index of shape [2,2] is not supported"), shape_error);
    attr_map a;
    a.set("axis", 2);
    CHECK_THROWS_WITH_AS(invoke("gather", a, in(ids<std::int32_t>({1}, {0})), {{"Out", 1}}),
                         doctest::Contains("axis 2 is out of range for rank 2"), shape_error);
}

}  // namespace ops_gather_test
