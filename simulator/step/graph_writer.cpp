#include "simulator/step/graph_writer.hpp"

#include <utility>

namespace preflight {

GraphWriter::GraphWriter(int tp, int pp, int ep, int cp, StepGraph recycled) : out_(std::move(recycled)) {
  out_.clear();
  engine::TaskGraph& g = out_.graph;
  resources_.compute = g.add_resource("gpu compute");
  resources_.comm = g.add_resource("collectives");
  resources_.h2d = g.add_resource("host-to-device copy");
  resources_.d2h = g.add_resource("device-to-host copy");
  resources_.cpu = g.add_resource("cpu");
  resources_.dispatch = g.add_resource("host dispatch");
  if (tp > 1) resources_.tp_link = g.add_resource("tensor-parallel collectives");
  if (pp > 1) resources_.p2p = g.add_resource("pipeline send/receive");
  if (ep > 1) resources_.ep_link = g.add_resource("expert-parallel all-to-all");
  if (cp > 1) resources_.cp_link = g.add_resource("context-parallel ring");
}

}  // namespace preflight
