/* tests/tools/zoo/graphs.h — shape-only graphs of model-zoo networks. */
#ifndef RT_TESTS_ZOO_GRAPHS_H
#define RT_TESTS_ZOO_GRAPHS_H

#include "runtime/model/model.h"

/* "mobilenetv2-12" (torchvision MobileNetV2, ReLU6 as Clip, BN folded),
 * "resnet50-v2-7" (MXNet gluon ResNet-50 v2), "yolov5n", "yolov5s", "yolov5m"
 * (YOLOv5 v6.x, SiLU), "yolov5s_relu", "yolov8n", "yolov8s", "yolov8m" (the
 * zoo's RKNN export: 640x640, 80 classes), "retinaface_r50" (the zoo's
 * RetinaFace_resnet50_320: biubug6/Pytorch_Retinaface with a ResNet-50 body
 * at 320x320, its phase 'test' export with the class Softmax); float tensors
 * with their shapes, the constants without data. NULL for another name. */
graph_t *zoo_graph(const char *name);
/* YOLOv8 of scale 'n', 's' or 'm' at a size x size input with `classes`
 * classes, as the RKNN export (the DFL outside, a clipped score sum per
 * scale); NULL for another scale. */
graph_t *zoo_yolov8(char scale, int size, int classes);

#endif
