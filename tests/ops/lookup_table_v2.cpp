// lookup_table_v2 / lookup_table against a plain-loop gather: several Ids
// shapes, int32 and int64 ids, padding_idx; an out-of-range id is named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_lookup_table_v2_test {

namespace {
template <class I>
std::vector<float> baseline(const tensor& w, const std::vector<I>& ids, std::int64_t pad) {
    const auto d = w.shape()[1];
    std::vector<float> out;
    for (auto id : ids)
        for (std::int64_t j = 0; j < d; ++j)
            out.push_back(pad != -1 && id == pad ? 0.f : w.span<float>()[id * d + j]);
    return out;
}
}  // namespace

TEST_CASE("lookup_table_v2 gathers rows for any Ids shape") {
    auto w = test::random_tensor({10, 4}, 31);
    const std::vector<std::int64_t> ids{3, 0, 9, 3, 5, 1};
    const shape_t shapes[] = {{6}, {2, 3}, {3, 2, 1}};
    for (const auto& s : shapes)
        for (std::int64_t pad : {-1, 3, 0}) {
            CAPTURE(to_string(s));
            CAPTURE(pad);
            attr_map a;
            a.set("padding_idx", pad);
            auto r =
                invoke("lookup_table_v2", a,
                       named_tensors{}.add("W", w).add("Ids", tensor::from<std::int64_t>(s, ids)),
                       {{"Out", 1}});
            shape_t expect = s;
            expect.push_back(4);
            CHECK(r.get("Out").shape() == expect);
            CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(w, ids, pad)) == 0);
        }
    const std::vector<std::int32_t> ids32{7, 2};
    auto r = invoke("lookup_table_v2", {},
                    named_tensors{}.add("W", w).add("Ids", tensor::from<std::int32_t>({2}, ids32)),
                    {{"Out", 1}});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(w, ids32, -1)) == 0);
}

TEST_CASE("lookup_table (v1) replaces the trailing 1 of Ids by D") {
    auto w = test::random_tensor({6, 3}, 32);
    const std::vector<std::int64_t> ids{5, 0, 2, 2};
    auto r =
        invoke("lookup_table", {},
               named_tensors{}.add("W", w).add("Ids", tensor::from<std::int64_t>({2, 2, 1}, ids)),
               {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{2, 2, 3});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(w, ids, -1)) == 0);
    CHECK_THROWS_WITH_AS(
        invoke("lookup_table", {},
               named_tensors{}.add("W", w).add("Ids", tensor::from<std::int64_t>({4}, ids)),
               {{"Out", 1}}),
        doctest::Contains("trailing dim of 1"), shape_error);
}

TEST_CASE("lookup_table_v2 names an out-of-range id instead of reading past W") {
    auto w = test::random_tensor({10, 4}, 33);
    for (std::int64_t bad : {10, -1, 1000}) {
        auto ids = tensor::from<std::int64_t>({3}, std::vector<std::int64_t>{1, bad, 2});
        CHECK_THROWS_WITH_AS(invoke("lookup_table_v2", {},
                                    named_tensors{}.add("W", w).add("Ids", ids), {{"Out", 1}}),
                             doctest::Contains(("Ids[1] = " + std::to_string(bad)).c_str()),
                             shape_error);
    }
    CHECK_THROWS_WITH_AS(
        invoke("lookup_table_v2", {},
               named_tensors{}.add("W", w).add("Ids", test::random_tensor({2}, 1)), {{"Out", 1}}),
        doctest::Contains("Ids must be int64 or int32"), shape_error);
}

TEST_CASE("lookup_table (v1) zeroes padding_idx rows and passes the Ids' LoD to Out") {
    auto w = test::random_tensor({6, 3}, 33);
    const std::vector<std::int64_t> ids{5, 2, 0, 2};
    auto t = tensor::from<std::int64_t>({4, 1}, ids);
    t.set_lod({{0, 1, 1, 4}});
    attr_map a;
    a.set("padding_idx", std::int64_t{2});
    auto r = invoke("lookup_table", a, named_tensors{}.add("W", w).add("Ids", t), {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{4, 3});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), baseline(w, ids, 2)) == 0);
    CHECK(r.get("Out").lod() == lod_t{{0, 1, 1, 4}});
    const std::vector<std::int64_t> bad{1, 6};
    CHECK_THROWS_WITH_AS(
        invoke("lookup_table", {},
               named_tensors{}.add("W", w).add("Ids", tensor::from<std::int64_t>({2, 1}, bad)),
               {{"Out", 1}}),
        doctest::Contains("Ids[1] = 6 is out of range"), shape_error);
}

}  // namespace ops_lookup_table_v2_test
