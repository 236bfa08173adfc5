// tile against a plain-loop baseline: fewer, equal and more repeat counts
// than X's rank, counts of 1, size-1 and empty dims, the RepeatTimes and
// repeat_times_tensor inputs, int64 data; a non-positive count is named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_tile_test {

namespace {
std::vector<float> baseline(const tensor& x, const std::vector<std::int64_t>& reps, shape_t& out) {
    shape_t in = x.shape();
    auto r = reps;
    while (r.size() < in.size()) r.insert(r.begin(), 1);
    while (in.size() < r.size()) in.insert(in.begin(), 1);
    out = in;
    for (std::size_t d = 0; d < in.size(); ++d) out[d] *= r[d];
    std::vector<float> v;
    for (std::int64_t i = 0; i < numel(out); ++i) {
        std::int64_t rest = i, src = 0, stride = 1;
        for (std::size_t d = out.size(); d-- > 0;) {
            const auto c = rest % out[d];
            rest /= out[d];
            src += (c % in[d]) * stride;
            stride *= in[d];
        }
        v.push_back(x.span<float>()[static_cast<std::size_t>(src)]);
    }
    return v;
}
}  // namespace

TEST_CASE("tile matches the baseline") {
    std::uint32_t seed = 1;
    using reps = std::vector<std::int64_t>;
    for (const shape_t& s : {shape_t{}, shape_t{3}, shape_t{2, 3}, shape_t{1, 2, 1}, shape_t{2, 0}})
        for (const reps& r :
             {reps{2}, reps{1, 1}, reps{2, 3}, reps{3, 1, 2}, reps{1, 2, 1, 2}, reps{}})
            for (int form = 0; form < 3; ++form) {
                CAPTURE(to_string(s));
                CAPTURE(to_string(r));
                CAPTURE(form);
                auto x = test::random_tensor(s, seed++);
                attr_map a;
                named_tensors in;
                in.add("X", x);
                if (form == 0) a.set("repeat_times", r);
                if (form == 1) {
                    if (r.empty()) continue;
                    a.set("repeat_times", reps(r.size(), 7));  // the input wins
                    in.add("RepeatTimes", tensor::from<std::int32_t>(
                                              {static_cast<std::int64_t>(r.size())},
                                              std::vector<std::int32_t>(r.begin(), r.end())));
                }
                if (form == 2) {
                    if (r.empty()) continue;
                    for (auto v : r)
                        in.add("repeat_times_tensor",
                               tensor::from<std::int64_t>({1}, std::vector<std::int64_t>{v}));
                }
                auto out = invoke("tile", a, in, {{"Out", 1}});
                shape_t e;
                auto expect = baseline(x, r, e);
                CHECK(out.get("Out").shape() == e);
                CHECK(test::max_abs_diff(out.get("Out").span<float>(), expect) == 0);
            }
}

TEST_CASE("tile keeps int64 values") {
    auto x = tensor::from<std::int64_t>({2}, std::vector<std::int64_t>{4, 5});
    attr_map a;
    a.set("repeat_times", std::vector<std::int64_t>{2, 2});
    auto r = invoke("tile", a, named_tensors{}.add("X", x), {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{2, 4});
    auto v = r.get("Out").span<std::int64_t>();
    CHECK(std::vector<std::int64_t>(v.begin(), v.end()) ==
          std::vector<std::int64_t>{4, 5, 4, 5, 4, 5, 4, 5});
}

TEST_CASE("tile names bad input") {
    auto x = test::random_tensor({2, 3}, 1);
    attr_map a;
    a.set("repeat_times", std::vector<std::int64_t>{2, 0});
    CHECK_THROWS_WITH_AS(invoke("tile", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("repeat_times value 0 must be positive"), shape_error);
    a.set("repeat_times", std::vector<std::int64_t>(9, 1));
    CHECK_THROWS_WITH_AS(invoke("tile", a, named_tensors{}.add("X", x), {{"Out", 1}}),
                         doctest::Contains("at most 8 dims"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("tile", {},
               named_tensors{}.add("X", x).add("RepeatTimes", test::random_tensor({2}, 2)),
               {{"Out", 1}}),
        doctest::Contains("'RepeatTimes' ('RepeatTimes') must be int32 or int64"), shape_error);
}

}  // namespace ops_tile_test
