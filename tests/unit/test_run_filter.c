/* The run filters of ls and the TUI (analyze/run_filter.c) on hand-made runs. */
#include "analyze/analyze.h"
#include "tests/test.h"

int main(void)
{
    store_run r;
    store_run_init(&r);
    r.model_path = "/models/yolo/yolov5s.onnx";
    r.quant = "i8";
    r.quant_algo = "mmse";
    r.quant_method = "layer";
    r.tags = "nightly,rk3588-ci";

    CHECK(run_filter_model(&r, "/models/yolo/yolov5s.onnx"), "full path");
    CHECK(run_filter_model(&r, "yolov5s.onnx"), "file name");
    CHECK(run_filter_model(&r, "yolo*"), "glob of the file name");
    CHECK(run_filter_model(&r, "/models/*/yolov5s.onnx"), "glob of the path");
    CHECK(!run_filter_model(&r, "yolov5"), "a part of the name is not a match");
    CHECK(!run_filter_model(&r, "mnist*"), "other model");

    CHECK(run_filter_quant(&r, "i8") && run_filter_quant(&r, "I8/MMSE"), "type, algo, any case");
    CHECK(run_filter_quant(&r, "i8/mmse/layer"), "type/algo/method");
    CHECK(!run_filter_quant(&r, "i8/normal") && !run_filter_quant(&r, "fp16"), "other quant");
    CHECK(!run_filter_quant(&r, "i8/mmse/channel"), "other method");

    CHECK(run_filter_tag(&r, "nightly") && run_filter_tag(&r, "rk3588-ci"), "each tag");
    CHECK(!run_filter_tag(&r, "night") && !run_filter_tag(&r, "rk3588"), "a prefix is not a tag");
    r.tags = NULL;
    CHECK(!run_filter_tag(&r, "nightly"), "no tags");
    r.model_path = NULL;
    r.quant = NULL;
    CHECK(!run_filter_model(&r, "x.onnx") && !run_filter_quant(&r, "i8"), "missing fields");
    /* an imported run without a model: the log's path stands for it */
    r.import_kind = "board log";
    r.env_json = "{\"source\":\"/logs/perf-yolov5s-rk3588.txt\",\"soc\":\"rk3588\"}";
    CHECK(run_filter_model(&r, "perf-*.txt") && run_filter_model(&r, "/logs/perf-yolov5s-rk3588.txt"),
          "an imported run: its log's file name and path");
    CHECK(!run_filter_model(&r, "x.onnx") && !run_filter_model(&r, "rk3588"), "not another name");
    r.import_kind = NULL;
    CHECK(!run_filter_model(&r, "perf-*.txt"), "a run not imported names no log");
    TEST_END();
}
