// OpenCV's DNN module (the system's libopencv-dev, 4.6) on models/occupancy.onnx: the
// alternative runtime issue 23 asked to measure. One thread, thread CPU time, medians of 30.
// Not part of the product (the crate does not build OpenCV's dnn feature); models/README.md
// gives its figures. Build and run from the project root:
//
//   g++ -O2 tests/tools/opencv_dnn_bench.cpp -o /tmp/opencv_dnn_bench $(pkg-config --cflags --libs opencv4)
//   taskset -c 1 /tmp/opencv_dnn_bench models/occupancy.onnx
#include <opencv2/dnn.hpp>
#include <opencv2/core.hpp>
#include <cstdio>
#include <ctime>
#include <vector>
#include <algorithm>
static double cpu_ms(){ timespec t; clock_gettime(CLOCK_THREAD_CPUTIME_ID,&t); return t.tv_sec*1e3+t.tv_nsec/1e6; }
int main(int argc, char** argv){
  cv::setNumThreads(0);
  cv::dnn::Net net = cv::dnn::readNetFromONNX(argv[1]);
  net.setPreferableBackend(cv::dnn::DNN_BACKEND_OPENCV);
  net.setPreferableTarget(cv::dnn::DNN_TARGET_CPU);
  int ns[] = {1, 8, 64, 361};
  for (int n : ns) {
    int sz[] = {n, 3, 40, 32};
    cv::Mat x(4, sz, CV_32F); cv::randu(x, 0, 1);
    std::vector<cv::Mat> outs; std::vector<cv::String> names = {"logits", "embedding"};
    net.setInput(x); net.forward(outs, names);
    std::vector<double> ts;
    for (int r = 0; r < 30; r++) { double c = cpu_ms(); net.setInput(x); net.forward(outs, names); ts.push_back(cpu_ms()-c); }
    std::sort(ts.begin(), ts.end());
    printf("opencv n=%d: %.3f ms  out %d x %d\n", n, ts[ts.size()/2], outs[0].size[0], outs[0].size[1]);
  }
  std::vector<double> t; 
}
