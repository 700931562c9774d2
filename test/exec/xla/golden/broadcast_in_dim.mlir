module @broadcast_in_dim attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<f32>, %arg2: tensor<1x3xi32>) -> (tensor<2x3xf32>, tensor<2x2xf32>, tensor<4x3xi32>) {
    %0 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>) -> tensor<2x3xf32>
    %1 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x2xf32>
    %2 = "stablehlo.broadcast_in_dim"(%arg2) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<1x3xi32>) -> tensor<4x3xi32>
    func.return %0, %1, %2 : tensor<2x3xf32>, tensor<2x2xf32>, tensor<4x3xi32>
  }
}
