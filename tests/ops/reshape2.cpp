// reshape2 / reshape: target shape from the attribute (0 copies, -1 infers),
// the Shape tensor or the ShapeTensor list; the data is copied unchanged;
// XShape is {0, dims of X}.  Also the lenet-style chain
// shape -> slice -> fill_constant -> reshape2 through the runtime.
#include "litegraph/ops/invoke.hpp"
#include "litegraph/runtime/program.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_reshape2_test {

namespace {
attr_map with_shape(std::vector<std::int32_t> s) {
    attr_map a;
    a.set("shape", std::move(s));
    return a;
}
template <class T>
tensor ints(shape_t s, std::vector<T> v) {
    return tensor::from<T>(std::move(s), v);
}
}  // namespace

TEST_CASE("reshape2 by attribute: 0 copies a dim, -1 infers one, data is unchanged") {
    struct cse {
        shape_t in;
        std::vector<std::int32_t> target;
        shape_t expect;
    };
    const cse cases[] = {
        {{2, 3, 4}, {0, -1}, {2, 12}},     {{2, 3, 4}, {-1}, {24}},
        {{2, 3, 4}, {4, 0, 2}, {4, 3, 2}}, {{2, 3, 4}, {0, 0, 2, 2}, {2, 3, 2, 2}},
        {{6}, {2, -1, 1}, {2, 3, 1}},      {{1, 8, 1, 1}, {-1, 8}, {1, 8}},
        {{5, 0}, {-1, 5}, {0, 5}},
    };
    for (const auto& c : cases) {
        CAPTURE(to_string(c.in));
        REQUIRE(numel(c.expect) == numel(c.in));
        auto x = test::random_tensor(c.in, 3);
        auto r = invoke("reshape2", with_shape(c.target), named_tensors{}.add("X", x),
                        {{"Out", 1}, {"XShape", 1}});
        const auto& out = r.get("Out");
        CHECK(out.shape() == c.expect);
        CHECK(test::max_abs_diff(out.span<float>(), x.span<float>()) == 0);
        shape_t xs{0};
        xs.insert(xs.end(), c.in.begin(), c.in.end());
        CHECK(r.get("XShape").shape() == xs);
        CHECK(r.get("XShape").bytes() == 0);
    }
}

TEST_CASE("reshape2: ShapeTensor list beats Shape beats the attribute") {
    auto x = test::random_tensor({2, 3, 4}, 5);
    // Shape tensor (int64) overrides the attribute.
    auto r1 = invoke("reshape2", with_shape({24}),
                     named_tensors{}.add("X", x).add("Shape", ints<std::int64_t>({2}, {-1, 6})),
                     {{"Out", 1}});
    CHECK(r1.get("Out").shape() == shape_t{4, 6});
    // ShapeTensor list (int32, one value each) overrides both.
    auto in = named_tensors{}.add("X", x).add("Shape", ints<std::int64_t>({2}, {-1, 6}));
    in.add("ShapeTensor", ints<std::int32_t>({1}, {0}))
        .add("ShapeTensor", ints<std::int32_t>({1}, {-1}))
        .add("ShapeTensor", ints<std::int32_t>({1}, {2}));
    auto r2 = invoke("reshape2", with_shape({24}), in, {{"Out", 1}});
    CHECK(r2.get("Out").shape() == shape_t{2, 6, 2});
    CHECK(test::max_abs_diff(r2.get("Out").span<float>(), x.span<float>()) == 0);
}

TEST_CASE("reshape (v1) has no XShape and copies") {
    auto x = test::random_tensor({3, 4}, 9);
    auto r = invoke("reshape", with_shape({4, 3}), named_tensors{}.add("X", x), {{"Out", 1}});
    CHECK(r.get("Out").shape() == shape_t{4, 3});
    CHECK(test::max_abs_diff(r.get("Out").span<float>(), x.span<float>()) == 0);
}

TEST_CASE("reshape2 names what is wrong") {
    auto x = test::random_tensor({2, 3, 4}, 1);
    auto in = named_tensors{}.add("X", x);
    CHECK_THROWS_WITH_AS(invoke("reshape2", with_shape({-1, -1}), in, {{"Out", 1}}),
                         doctest::Contains("only one dim"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("reshape2", with_shape({5, -1}), in, {{"Out", 1}}),
                         doctest::Contains("cannot reshape X [2,3,4]"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("reshape2", with_shape({2, 3, 5}), in, {{"Out", 1}}),
                         doctest::Contains("(30 elements)"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("reshape2", with_shape({0, 0, 0, 0}), in, {{"Out", 1}}),
                         doctest::Contains("has rank 3"), shape_error);
    CHECK_THROWS_WITH_AS(invoke("reshape2", with_shape({2, -2, 12}), in, {{"Out", 1}}),
                         doctest::Contains("negative"), shape_error);
    CHECK_THROWS_WITH_AS(
        invoke("reshape2", {},
               named_tensors{}.add("X", x).add("Shape", test::random_tensor({2}, 1)), {{"Out", 1}}),
        doctest::Contains("must be int32 or int64"), shape_error);
}

TEST_CASE("reshape2 fails clearly when the shape value is not known in inference") {
    auto k = make_instance("reshape2", attr_map{});
    tensor x(dtype::f32, {2, 6});
    tensor_ref xr = x.ref("x"), shape_ref{"dyn_shape", dtype::i32, {2}, nullptr}, out;
    op_io io;
    io.type = "reshape2";
    io.label = "out";
    io.inputs = {{"X", {&xr}}, {"Shape", {&shape_ref}}};
    io.outputs = {{"Out", {&out}}};
    CHECK_THROWS_WITH_AS(k->infer(io), doctest::Contains("'dyn_shape') decides the output shape"),
                         shape_error);
}

TEST_CASE("lenet's shape -> slice -> fill_constant -> reshape2 chain folds and follows the batch") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {-1, 2, 3, 4});
    b.declare("s", {4}, dtype::i32);
    b.declare("n", {1}, dtype::i32);
    b.declare("m1", {1}, dtype::i32);
    b.declare("y", {-1, -1});
    b.declare("xs", {0, -1, 2, 3, 4});
    b.feed("x", 0);
    b.add_op("shape", {{"Input", {"x"}}}, {{"Out", {"s"}}}, {});
    attr_map sl;
    sl.set("axes", std::vector<std::int32_t>{0});
    sl.set("starts", std::vector<std::int32_t>{0});
    sl.set("ends", std::vector<std::int32_t>{1});
    sl.set("decrease_axis", std::vector<std::int32_t>{0});
    b.add_op("slice", {{"Input", {"s"}}}, {{"Out", {"n"}}}, sl);
    attr_map fc;
    fc.set("shape", std::vector<std::int64_t>{1});
    fc.set("dtype", 2);
    fc.set("value", -1.f);
    fc.set("str_value", std::string("-1"));
    b.add_op("fill_constant", {}, {{"Out", {"m1"}}}, fc);
    b.add_op("reshape2", {{"X", {"x"}}, {"ShapeTensor", {"n", "m1"}}},
             {{"Out", {"y"}}, {"XShape", {"xs"}}}, with_shape({-1, -1}));
    b.fetch("y", 0);
    b.finish();
    runtime::program p(std::move(g));
    for (std::int64_t batch : {1, 3}) {
        auto x = test::random_tensor({batch, 2, 3, 4}, 11);
        p.set_input("x", x);
        p.run();
        CHECK(p.output(0).shape == shape_t{batch, 24});
        CHECK(test::max_abs_diff(p.output(0).span<float>(), x.span<float>()) == 0);
        int folded = 0;
        for (auto& ins : p.instructions()) folded += ins.folded;
        CHECK(folded == 3);  // shape, slice, fill_constant
    }
}

}  // namespace ops_reshape2_test
