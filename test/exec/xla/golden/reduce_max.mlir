module @reduce_max attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xi32>, %arg2: tensor<4xbf16>) -> (tensor<f32>, tensor<2xi32>, tensor<bf16>) {
    %0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
      ^bb0(%2: tensor<f32>, %3: tensor<f32>):
        %4 = "stablehlo.maximum"(%2, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    %5 = "stablehlo.constant"() {value = dense<-2147483648> : tensor<i32>} : () -> tensor<i32>
    %6 = "stablehlo.reduce"(%arg1, %5) ({
      ^bb0(%7: tensor<i32>, %8: tensor<i32>):
        %9 = "stablehlo.maximum"(%7, %8) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%9) : (tensor<i32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
    %10 = "stablehlo.constant"() {value = dense<0xFF80> : tensor<bf16>} : () -> tensor<bf16>
    %11 = "stablehlo.reduce"(%arg2, %10) ({
      ^bb0(%12: tensor<bf16>, %13: tensor<bf16>):
        %14 = "stablehlo.maximum"(%12, %13) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
        "stablehlo.return"(%14) : (tensor<bf16>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4xbf16>, tensor<bf16>) -> tensor<bf16>
    func.return %1, %6, %11 : tensor<f32>, tensor<2xi32>, tensor<bf16>
  }
}
