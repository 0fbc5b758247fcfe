/* tests/tools/zoo/graphs.h — shape-only graphs of model-zoo networks. */
#ifndef RT_TESTS_ZOO_GRAPHS_H
#define RT_TESTS_ZOO_GRAPHS_H

#include "runtime/model/model.h"

/* "mobilenetv2-12" (torchvision MobileNetV2, ReLU6 as Clip, BN folded),
 * "resnet50-v2-7" (MXNet gluon ResNet-50 v2), "yolov5n", "yolov5s", "yolov5m"
 * (YOLOv5 v6.x, SiLU), "yolov5s_relu"; float tensors with their shapes, the
 * constants without data. NULL for another name. */
graph_t *zoo_graph(const char *name);

#endif
