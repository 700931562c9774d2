module @reduce_sum attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3x4xbf16>, %arg2: tensor<3xi32>) -> (tensor<2xf32>, tensor<3xbf16>, tensor<3xi32>) {
    %0 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
      ^bb0(%2: tensor<f32>, %3: tensor<f32>):
        %4 = "stablehlo.add"(%2, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %5 = "stablehlo.convert"(%arg1) : (tensor<2x3x4xbf16>) -> tensor<2x3x4xf32>
    %6 = "stablehlo.reduce"(%5, %0) ({
      ^bb0(%7: tensor<f32>, %8: tensor<f32>):
        %9 = "stablehlo.add"(%7, %8) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%9) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0, 2>} : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<3xf32>
    %10 = "stablehlo.convert"(%6) : (tensor<3xf32>) -> tensor<3xbf16>
    func.return %1, %10, %arg2 : tensor<2xf32>, tensor<3xbf16>, tensor<3xi32>
  }
}
