module @stop_gradient attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>) -> (tensor<3xf32>) {
    func.return %arg0 : tensor<3xf32>
  }
}
