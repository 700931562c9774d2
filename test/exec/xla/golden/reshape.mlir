module @reshape attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<1xf32>) -> (tensor<3x2xf32>, tensor<f32>) {
    %0 = "stablehlo.reshape"(%arg0) : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %1 = "stablehlo.reshape"(%arg1) : (tensor<1xf32>) -> tensor<f32>
    func.return %0, %1 : tensor<3x2xf32>, tensor<f32>
  }
}
