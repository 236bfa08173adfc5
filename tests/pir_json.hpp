// Small Paddle 3.x PIR programs (inference.json) written as JSON: what the
// PIR reader's tests (tests/loader/paddle_pir.cpp) and fuzz_pir's program
// generator (tests/fuzz/pir_recipe.hpp) build their programs from.
// docs/paddle-pir.md describes the format.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace litegraph::test::pir_json {

using json = nlohmann::json;

/// A dense tensor type: `0.t_f32`, `0.t_i64`, ... of `dims` (-1: unknown).
inline json tensor_type(const std::string& dt, const std::vector<std::int64_t>& dims) {
    return {{"#", "0.t_dtensor"},
            {"D", json::array({{{"#", dt}}, dims, "NCHW", json::array(), 0})}};
}
/// An attribute `name` of tag `tag` (`0.a_i32`, `1.a_intarray`, ...) holding `data`.
inline json attr(const std::string& name, const std::string& tag, json data) {
    return {{"N", name}, {"AT", {{"#", tag}, {"D", std::move(data)}}}};
}
/// An op reading the values `in` (0: an absent operand) and defining `out`
/// (value id, type).
inline json op(const std::string& name, std::vector<std::int64_t> in,
               std::vector<std::pair<std::int64_t, json>> out, json attrs = json::array()) {
    json o{{"#", name}, {"A", std::move(attrs)}, {"I", json::array()}, {"O", json::array()}};
    for (auto i : in) o["I"].push_back({{"%", i}});
    for (auto& [id, tt] : out) o["O"].push_back({{"%", id}, {"TT", tt}});
    o["OA"] = json::array();
    return o;
}
/// A parameter `name` (its values in the parameter file) defining value `id`.
inline json param(const std::string& name, std::int64_t id, json tt) {
    return {{"#", "p"},
            {"A", json::array({0, 1, 1, name})},
            {"DA", json::array()},
            {"O", {{"%", id}, {"TT", std::move(tt)}}},
            {"OA", json::array({1, 0, 1})},
            {"QA", json::array()}};
}
/// A program input `name` of dtype `dtype` (a PIR dtype name) and type tag `tag`.
inline json data(const std::string& name, std::int64_t id, const std::vector<std::int64_t>& dims,
                 const std::string& dtype = "float32", const std::string& tag = "0.t_f32") {
    return op("1.data", {}, {{id, tensor_type(tag, dims)}},
              json::array({attr("name", "0.a_str", name), attr("shape", "1.a_intarray", dims),
                           attr("dtype", "1.a_dtype", dtype)}));
}
/// Output `col` of the program: value `in`.
inline json fetch(std::int64_t in, std::int64_t id, int col) {
    return op("1.fetch", {in}, {{id, tensor_type("0.t_f32", {-1})}},
              json::array({attr("name", "0.a_str", "fetch_name_" + std::to_string(col)),
                           attr("col", "0.a_i32", col)}));
}
/// The whole program: one region, one block holding `ops`.
inline json program(json ops) {
    return {{"base_code", {{"magic", "pir"}, {"trainable", true}, {"version", 1}}},
            {"program",
             {{"regions", json::array({{{"#", "region_0"},
                                        {"blocks", json::array({{{"#", "block_0"},
                                                                 {"args", json::array()},
                                                                 {"ops", std::move(ops)}}})}}})}}}};
}

}  // namespace litegraph::test::pir_json
