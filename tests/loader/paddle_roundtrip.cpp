// The writer: a graph saved and loaded back is the same graph (ops, attributes,
// variables, parameter values, feeds and fetches).
#include <cstring>
#include <functional>

#include "fuzz/op_seeds.hpp"
#include "litegraph/runtime/program.hpp"
#include "loader/paddle_support.hpp"

using namespace litegraph;

namespace loader_paddle_roundtrip_test {
namespace fs = std::filesystem;

namespace {

void check_same(const graph::graph& a, const graph::graph& b) {
    REQUIRE(a.vars.size() == b.vars.size());
    for (std::size_t i = 0; i < a.vars.size(); ++i) {
        const auto &x = a.vars[i], &y = b.vars[i];
        CAPTURE(x.name);
        CHECK(x.name == y.name);
        CHECK(x.type == y.type);
        CHECK(x.shape == y.shape);
        CHECK(x.persistable == y.persistable);
        CHECK(x.lod_level == y.lod_level);
        CHECK(x.producer == y.producer);
        CHECK(x.consumers == y.consumers);
        REQUIRE(x.value.has_value() == y.value.has_value());
        if (x.value) {
            CHECK(x.value->type() == y.value->type());
            CHECK(x.value->shape() == y.value->shape());
            REQUIRE(x.value->bytes() == y.value->bytes());
            CHECK(std::memcmp(x.value->data(), y.value->data(), x.value->bytes()) == 0);
        }
    }
    REQUIRE(a.ops.size() == b.ops.size());
    for (std::size_t i = 0; i < a.ops.size(); ++i) {
        const auto &x = a.ops[i], &y = b.ops[i];
        CAPTURE(a.op_label(static_cast<int>(i)));
        CHECK(x.type == y.type);
        auto same_slots = [](const std::vector<graph::slot>& p, const std::vector<graph::slot>& q) {
            if (p.size() != q.size()) return false;
            for (std::size_t k = 0; k < p.size(); ++k)
                if (p[k].name != q[k].name || p[k].vars != q[k].vars) return false;
            return true;
        };
        CHECK(same_slots(x.inputs, y.inputs));
        CHECK(same_slots(x.outputs, y.outputs));
        CHECK(x.attrs.all() == y.attrs.all());
    }
    auto same_io = [](const std::vector<graph::io_binding>& p,
                      const std::vector<graph::io_binding>& q) {
        if (p.size() != q.size()) return false;
        for (std::size_t k = 0; k < p.size(); ++k)
            if (p[k].var != q[k].var || p[k].col != q[k].col) return false;
        return true;
    };
    CHECK(same_io(a.feeds, b.feeds));
    CHECK(same_io(a.fetches, b.fetches));
}

template <class T>
tensor values(shape_t s, std::initializer_list<T> v) {
    return tensor::from<T>(std::move(s), std::span<const T>(v.begin(), v.size()));
}

graph::graph small_net() {
    graph::graph g;
    graph::builder b(g);
    b.declare("image", {-1, 3, 4, 4});
    b.declare("ids", {-1, 1}, dtype::i64);
    b.declare("conv_out", {-1, 2, 4, 4});
    b.declare("act", {-1, 2, 4, 4});
    b.declare("emb", {-1, 1, 3});
    auto param = [&](std::string name, tensor t) {
        graph::var_node v;
        v.name = std::move(name);
        v.type = t.type();
        v.shape = t.shape();
        v.persistable = true;
        v.value = std::move(t);
        b.declare(std::move(v));
    };
    param("conv.w", test::random_tensor({2, 3, 3, 3}, 11));
    param("conv.b", values<float>({2}, {0.5f, -0.25f}));
    param("Table", test::random_tensor({5, 3}, 12));  // 'T' < 'c': byte-wise order matters
    param("mask", values<std::int64_t>({3}, {1, -2, 3000000000LL}));
    param("flags", values<bool>({2}, {true, false}));
    param("halfs", values<double>({1, 2}, {1.5, -2.25}));
    attr_map conv;
    conv.set("strides", std::vector<std::int32_t>{1, 1});
    conv.set("paddings", std::vector<std::int32_t>{1, 1});
    conv.set("groups", std::int32_t{1});
    conv.set("data_format", std::string("NCHW"));
    conv.set("use_cudnn", true);
    attr_map act;
    act.set("alpha", 0.1f);
    act.set("beta", 2.5);
    act.set("seed", std::int64_t{1} << 40);
    act.set("shape", std::vector<std::int64_t>{-1, 2, 4, 4});
    act.set("ratios", std::vector<float>{0.5f, 2.f});
    act.set("weights", std::vector<double>{0.125, 1e-300});
    act.set("names", std::vector<std::string>{"a", "", "b c"});
    act.set("mask", std::vector<bool>{true, false, true});
    act.set("empty_ints", std::vector<std::int32_t>{});
    b.feed("ids", 1);  // out of col order on purpose
    b.feed("image", 0);
    b.add_op("conv2d", {{"Input", {"image"}}, {"Filter", {"conv.w"}}}, {{"Output", {"conv_out"}}},
             conv);
    b.add_op("elementwise_add", {{"X", {"conv_out"}}, {"Y", {"conv.b"}}}, {{"Out", {"act"}}}, {});
    // `act` written a second time: the builder versions it.
    b.add_op("leaky_relu", {{"X", {"act"}}}, {{"Out", {"act"}}}, act);
    b.add_op("lookup_table_v2", {{"Ids", {"ids"}}, {"W", {"Table"}}}, {{"Out", {"emb"}}}, {});
    b.fetch("emb", 1);
    b.fetch("act", 0);
    b.finish();
    return g;
}

}  // namespace

TEST_CASE("a small graph with weights and every attribute type round-trips") {
    auto g = small_net();
    const std::string act = g.vars[g.fetches[0].var].name;  // the second write of "act"
    REQUIRE(act != "act");
    auto dir = test::scratch("roundtrip_small");
    paddle::save(g, dir, "net");
    REQUIRE(fs::exists(dir / "net.pdmodel"));
    REQUIRE(fs::exists(dir / "net.pdiparams"));
    auto m = paddle::load(dir);
    CHECK(m.info.format == "combined");
    CHECK(m.info.num_params == 6);
    CHECK(m.info.op_counts.at("feed") == 2);
    CHECK(m.info.op_counts.at("fetch") == 2);
    REQUIRE(m.info.feeds.size() == 2);
    CHECK(m.info.feeds[0].name == "image");
    CHECK(m.info.feeds[1].name == "ids");
    CHECK(m.info.fetches[0].name == act);
    check_same(g, m.graph);

    // Records are in byte-wise name order: the first is "Table" (5x3 f32), whose
    // data starts after a 20-byte header and its TensorDesc.
    auto params = test::read_bytes(dir / "net.pdiparams");
    std::int32_t desc_size = 0;
    std::memcpy(&desc_size, params.data() + 16, 4);
    float first = 0;
    std::memcpy(&first, params.data() + 20 + desc_size, 4);
    CHECK(first == g.vars[g.find_var("Table")].value->span<float>()[0]);

    // Saving what was loaded writes the same bytes.
    auto again = test::scratch("roundtrip_small_again");
    paddle::save(m.graph, again, "net");
    CHECK(test::read_bytes(again / "net.pdmodel") == test::read_bytes(dir / "net.pdmodel"));
    CHECK(test::read_bytes(again / "net.pdiparams") == params);
}

TEST_CASE("a graph without parameter values saves as topology only") {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {2});
    b.declare("y", {2});
    b.feed("x", 0);
    b.add_op("relu", {{"X", {"x"}}}, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    auto dir = test::scratch("roundtrip_no_params");
    paddle::save(g, dir);
    CHECK(fs::exists(dir / "model.pdmodel"));
    CHECK(!fs::exists(dir / "model.pdiparams"));
    auto m = paddle::load(dir);
    check_same(g, m.graph);

    graph::graph h;
    graph::builder hb(h);
    graph::var_node w;
    w.name = "w";
    w.shape = {2};
    w.persistable = true;  // but no value
    hb.declare(std::move(w));
    hb.finish();
    CHECK_THROWS_WITH_AS(paddle::save(h, test::scratch("roundtrip_missing_value")),
                         doctest::Contains("'w'"), usage_error);
}

TEST_CASE("real models round-trip through the writer") {
    for (const char* name : {"lenet_mnist", "ppocr_mobile_v2.0_cls", "mlp_mnist_fluid2018",
                             "word2vec_ngram", "paddlelite_ut_fill_constant"}) {
        CAPTURE(name);
        auto src = test::shared_model(name);
        if (src.empty()) continue;
        auto original = paddle::load(src);
        auto dir = test::scratch(std::string("roundtrip_") + name);
        paddle::save(original.graph, dir, "copy");
        auto copy = paddle::load(dir);
        check_same(original.graph, copy.graph);
        CHECK(copy.info.op_counts == original.info.op_counts);
        CHECK(copy.info.param_elements == original.info.param_elements);
        if (original.info.format == "combined") {
            // Same records in the same order: the same bytes as Paddle wrote.
            CHECK(test::read_bytes(dir / "copy.pdiparams") ==
                  test::read_bytes(original.info.params_file));
        }
    }
}

namespace {
/// A topology with one assign_value op (dtype `code`, shape `shape`) feeding y = x + c,
/// whose `values` attribute is written by `fill` as Paddle 2.5+ does: type SCALARS,
/// one paddle.framework.proto.Scalar per value.
std::string scalars_program(int code, const shape_t& shape,
                            const std::function<void(google::protobuf::Message&)>& fill) {
    graph::graph g;
    graph::builder b(g);
    b.declare("x", shape, code == 3 ? dtype::i64 : dtype::f32);
    b.declare("c", shape, code == 3 ? dtype::i64 : dtype::f32);
    b.declare("y", shape, code == 3 ? dtype::i64 : dtype::f32);
    b.feed("x", 0);
    attr_map a;
    a.set("shape", std::vector<std::int32_t>(shape.begin(), shape.end()));
    a.set("dtype", code);
    a.set("values", std::vector<double>{});  // rewritten below
    b.add_op("assign_value", {}, {{"Out", {"c"}}}, std::move(a));
    b.add_op("elementwise_add", {{"X", {"x"}}, {"Y", {"c"}}}, {{"Out", {"y"}}}, {});
    b.fetch("y", 0);
    b.finish();
    using namespace paddle::detail;
    auto program = paddle::schema::get().make(paddle::schema::get().program);
    REQUIRE(program->ParseFromString(paddle::serialize_program(g)));
    auto& block = *program->GetReflection()->MutableRepeatedMessage(program.get(),
                                                                    field(*program, "blocks"), 0);
    bool found = false;
    for (int i = 0; i < count(block, "ops"); ++i) {
        auto& op = *block.GetReflection()->MutableRepeatedMessage(&block, field(block, "ops"), i);
        if (get_str(op, "type") != "assign_value") continue;
        for (int k = 0; k < count(op, "attrs"); ++k) {
            auto& at = *op.GetReflection()->MutableRepeatedMessage(&op, field(op, "attrs"), k);
            if (get_str(at, "name") != "values") continue;
            set_enum(at, "type", 17);  // SCALARS
            fill(at);
            found = true;
        }
    }
    REQUIRE(found);
    return program->SerializeAsString();
}
}  // namespace

TEST_CASE("Scalar attributes (Paddle 2.5+): assign_value's values load as int64 or double") {
    // Doubles (type 3) into a float32 constant.
    auto reals = scalars_program(5, {3}, [](google::protobuf::Message& at) {
        using namespace paddle::detail;
        for (double v : {0.5, -2.0, 3.25}) {
            auto& s = add_msg(at, "scalars");
            set_enum(s, "type", 3);
            set_f64(s, "r", v);
        }
    });
    auto m = paddle::load_from_memory(reals, std::string_view{});
    runtime::program p(std::move(m.graph));
    p.set_input("x", tensor::from<float>({3}, std::vector<float>{1, 1, 1}));
    p.run();
    CHECK(test::max_abs_diff(p.output(0).span<float>(), std::vector<float>{1.5f, -1, 4.25f}) == 0);

    // int64 (type 2) and a bool (type 1) into an int64 constant: exact past 2^53.
    const std::int64_t big = (std::int64_t{1} << 60) + 1;
    auto ints = scalars_program(3, {2}, [&](google::protobuf::Message& at) {
        using namespace paddle::detail;
        auto& s = add_msg(at, "scalars");
        set_enum(s, "type", 2);
        set_i64(s, "i", big);
        auto& t = add_msg(at, "scalars");
        set_enum(t, "type", 1);
        set_bool(t, "b", true);
    });
    auto mi = paddle::load_from_memory(ints, std::string_view{});
    runtime::program q(std::move(mi.graph));
    q.set_input("x", tensor::from<std::int64_t>({2}, std::vector<std::int64_t>{0, 10}));
    q.run();
    auto y = q.output(0).span<std::int64_t>();
    CHECK(std::vector<std::int64_t>(y.begin(), y.end()) == std::vector<std::int64_t>{big, 11});

    // A complex scalar is named.
    auto complex = scalars_program(5, {1}, [](google::protobuf::Message& at) {
        using namespace paddle::detail;
        auto& s = add_msg(at, "scalars");
        set_enum(s, "type", 4);
        auto& c = mut_msg(s, "c");
        set_f64(c, "r", 1);
        set_f64(c, "i", 2);
    });
    CHECK_THROWS_WITH_AS(paddle::load_from_memory(complex, std::string_view{}),
                         doctest::Contains("attribute 'values' holds a complex scalar"),
                         unsupported_error);
}

TEST_CASE("every attribute type of the schema loads as its attr_value alternative") {
    // y = scale(x) with one extra attribute of each type, set through the schema
    // (the writer emits only the types litegraph's own attributes need).
    graph::graph g;
    graph::builder b(g);
    b.declare("x", {2}, dtype::f32);
    b.declare("y", {2}, dtype::f32);
    b.feed("x", 0);
    attr_map a;
    a.set("scale", 2.f);
    b.add_op("scale", {{"X", {"x"}}}, {{"Out", {"y"}}}, std::move(a));
    b.fetch("y", 0);
    b.finish();
    using namespace paddle::detail;
    using Message = google::protobuf::Message;
    auto program = paddle::schema::get().make(paddle::schema::get().program);
    REQUIRE(program->ParseFromString(paddle::serialize_program(g)));
    auto& block = *program->GetReflection()->MutableRepeatedMessage(program.get(),
                                                                    field(*program, "blocks"), 0);
    Message* scale = nullptr;  // the writer also writes feed and fetch ops
    for (int i = 0; i < count(block, "ops"); ++i) {
        auto* o = block.GetReflection()->MutableRepeatedMessage(&block, field(block, "ops"), i);
        if (get_str(*o, "type") == "scale") scale = o;
    }
    REQUIRE(scale != nullptr);
    auto& op = *scale;
    auto add = [&](const char* name, int type, const std::function<void(Message&)>& fill) {
        auto& at = add_msg(op, "attrs");
        set_str(at, "name", name);
        set_enum(at, "type", type);
        fill(at);
    };
    add("a_long", 9, [](Message& at) { set_i64(at, "l", std::int64_t{1} << 40); });
    add("a_float64", 15, [](Message& at) { set_f64(at, "float64", 0.1); });
    add("a_longs", 11, [](Message& at) {
        add_i64(at, "longs", -3);
        add_i64(at, "longs", std::int64_t{1} << 50);
    });
    add("a_floats", 4, [](Message& at) { add_f32(at, "floats", 1.5f); });
    add("a_float64s", 12, [](Message& at) {
        add_f64(at, "float64s", 0.25);
        add_f64(at, "float64s", -1e300);
    });
    add("a_bools", 7, [](Message& at) {
        add_bool(at, "bools", true);
        add_bool(at, "bools", false);
    });
    add("a_strings", 5, [](Message& at) { add_str(at, "strings", "NCHW"); });
    add("a_var", 13, [](Message& at) { set_str(at, "var_name", "x"); });
    add("a_vars", 14, [](Message& at) {
        add_str(at, "vars_name", "x");
        add_str(at, "vars_name", "y");
    });
    for (auto [name, kind] :
         {std::pair{"a_scalar_bool", 1}, {"a_scalar_int", 2}, {"a_scalar_real", 3}})
        add(name, 16, [kind = kind](Message& at) {
            auto& sc = mut_msg(at, "scalar");
            set_enum(sc, "type", kind);
            if (kind == 1) set_bool(sc, "b", true);
            if (kind == 2) set_i64(sc, "i", -(std::int64_t{1} << 60));
            if (kind == 3) set_f64(sc, "r", 2.5);
        });
    add("a_scalars_mixed", 17, [](Message& at) {  // a double among them: all double
        for (int kind : {2, 3}) {
            auto& sc = add_msg(at, "scalars");
            set_enum(sc, "type", kind);
            if (kind == 2) set_i64(sc, "i", 7);
            if (kind == 3) set_f64(sc, "r", 0.5);
        }
    });
    const auto bytes = program->SerializeAsString();
    fuzz::op_seeds::record_topology(bytes);  // a fuzz seed (tools/record-op-seeds.sh)
    auto m = paddle::load_from_memory(bytes, std::string_view{});
    const auto& got = m.graph.ops.at(0).attrs.all();
    auto is = [&]<class T>(const char* name, const T& want) {
        CAPTURE(name);
        REQUIRE(got.count(name) == 1);
        REQUIRE(std::holds_alternative<T>(got.at(name)));
        CHECK(std::get<T>(got.at(name)) == want);
    };
    is("a_long", std::int64_t{1} << 40);
    is("a_float64", 0.1);
    is("a_longs", std::vector<std::int64_t>{-3, std::int64_t{1} << 50});
    is("a_floats", std::vector<float>{1.5f});
    is("a_float64s", std::vector<double>{0.25, -1e300});
    is("a_bools", std::vector<bool>{true, false});
    is("a_strings", std::vector<std::string>{"NCHW"});
    is("a_var", std::string("x"));
    is("a_vars", std::vector<std::string>{"x", "y"});
    is("a_scalar_bool", true);
    is("a_scalar_int", -(std::int64_t{1} << 60));
    is("a_scalar_real", 2.5);
    is("a_scalars_mixed", std::vector<double>{7.0, 0.5});
    // The op still runs with its own attribute.
    runtime::program p(std::move(m.graph));
    p.set_input("x", tensor::from<float>({2}, std::vector<float>{1, -2}));
    p.run();
    CHECK(test::max_abs_diff(p.output(0).span<float>(), std::vector<float>{2, -4}) == 0);
}

}  // namespace loader_paddle_roundtrip_test
