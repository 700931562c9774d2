module @donation attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %arg1: tensor<4xf32>, %arg2: tensor<i32> {tf.aliasing_output = 1 : i32}) -> (tensor<4xf32>, tensor<i32>, tensor<f32>) {
    %0 = "stablehlo.subtract"(%arg0, %arg1) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %1 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %2 = "stablehlo.reduce"(%arg1, %1) ({
      ^bb0(%3: tensor<f32>, %4: tensor<f32>):
        %5 = "stablehlo.add"(%3, %4) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%5) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    func.return %0, %arg2, %2 : tensor<4xf32>, tensor<i32>, tensor<f32>
  }
}
