module @slice attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>) -> (tensor<2x5xf32>) {
    %0 = "stablehlo.slice"(%arg0) {start_indices = array<i64: 1, 0>, limit_indices = array<i64: 3, 5>, strides = array<i64: 1, 1>} : (tensor<4x5xf32>) -> tensor<2x5xf32>
    func.return %0 : tensor<2x5xf32>
  }
}
