// shape: int32 (or, with dtype 3, int64) dims of Input, for several ranks and dtypes;
// folded from shapes; another dtype is named.
#include "litegraph/ops/invoke.hpp"
#include "support.hpp"

using namespace litegraph;

namespace ops_shape_test {

TEST_CASE("shape gives Input's dims as int32") {
    const shape_t shapes[] = {{5}, {2, 3}, {1, 3, 28, 28}, {2, 0, 4}};
    for (const auto& s : shapes) {
        auto r =
            invoke("shape", {}, named_tensors{}.add("Input", tensor(dtype::i64, s)), {{"Out", 1}});
        const auto& out = r.get("Out");
        CHECK(out.type() == dtype::i32);
        CHECK(out.shape() == shape_t{static_cast<std::int64_t>(s.size())});
        auto v = out.span<std::int32_t>();
        CHECK(std::vector<std::int64_t>(v.begin(), v.end()) == s);
    }
    CHECK(make_instance("shape", {})->folds_from_shapes());
}

TEST_CASE("shape needs no input data") {
    auto k = make_instance("shape", {});
    tensor_ref in{"x", dtype::f32, {4, 7}, nullptr}, out;
    op_io io;
    io.type = "shape";
    io.label = "s";
    io.inputs = {{"Input", {&in}}};
    io.outputs = {{"Out", {&out}}};
    k->infer(io);
    tensor t(out.type, out.shape);
    out.data = t.data();
    k->run(io);
    CHECK(t.span<std::int32_t>()[0] == 4);
    CHECK(t.span<std::int32_t>()[1] == 7);
}

TEST_CASE("shape with dtype 3 (PIR's 1.shape64) gives int64 dims; other dtypes are named") {
    attr_map a;
    a.set("dtype", std::int32_t{3});
    for (const shape_t& s : {shape_t{5}, shape_t{1, 3, 48, 320}, shape_t{3000000000, 2}}) {
        tensor_ref in{"x", dtype::f32, s, nullptr}, out;
        op_io io;
        io.type = "shape";
        io.label = "s";
        io.inputs = {{"Input", {&in}}};
        io.outputs = {{"Out", {&out}}};
        auto k = make_instance("shape", a);
        k->infer(io);  // 3e9 does not fit int32, but fits int64
        CHECK(out.type == dtype::i64);
        tensor t(out.type, out.shape);
        out.data = t.data();
        k->run(io);
        auto v = t.span<std::int64_t>();
        CHECK(std::vector<std::int64_t>(v.begin(), v.end()) == s);
    }
    a.set("dtype", std::int32_t{5});  // float32
    CHECK_THROWS_WITH_AS(make_instance("shape", a), doctest::Contains("dtype 5 is neither int32"),
                         unsupported_error);
}

}  // namespace ops_shape_test
