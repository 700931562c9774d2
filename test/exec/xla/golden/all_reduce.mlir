module @all_reduce attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<4xbf16>) -> (tensor<2x3xf32>, tensor<4xbf16>) {
    %0 = "stablehlo.all_reduce"(%arg0) ({
      ^bb0(%1: tensor<f32>, %2: tensor<f32>):
        %3 = "stablehlo.add"(%1, %2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%3) : (tensor<f32>) -> ()
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %4 = "stablehlo.all_reduce"(%arg1) ({
      ^bb0(%5: tensor<bf16>, %6: tensor<bf16>):
        %7 = "stablehlo.add"(%5, %6) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
        "stablehlo.return"(%7) : (tensor<bf16>) -> ()
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<4xbf16>) -> tensor<4xbf16>
    func.return %0, %4 : tensor<2x3xf32>, tensor<4xbf16>
  }
}
