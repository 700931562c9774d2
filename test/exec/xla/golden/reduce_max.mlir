module @reduce_max attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>, %arg1: tensor<2x3xi32>, %arg2: tensor<4xbf16>) -> (tensor<f32>, tensor<2xi32>, tensor<bf16>) {
    %0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
      ^bb0(%2: tensor<f32>, %3: tensor<f32>):
        %4 = "stablehlo.maximum"(%2, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
    %5 = "stablehlo.compare"(%arg0, %arg0) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %6 = "stablehlo.constant"() {value = dense<false> : tensor<i1>} : () -> tensor<i1>
    %7 = "stablehlo.reduce"(%5, %6) ({
      ^bb0(%8: tensor<i1>, %9: tensor<i1>):
        %10 = "stablehlo.or"(%8, %9) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%10) : (tensor<i1>) -> ()
    }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xi1>, tensor<i1>) -> tensor<i1>
    %11 = "stablehlo.constant"() {value = dense<0x7FC00000> : tensor<f32>} : () -> tensor<f32>
    %12 = "stablehlo.select"(%7, %11, %1) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %13 = "stablehlo.constant"() {value = dense<-2147483648> : tensor<i32>} : () -> tensor<i32>
    %14 = "stablehlo.reduce"(%arg1, %13) ({
      ^bb0(%15: tensor<i32>, %16: tensor<i32>):
        %17 = "stablehlo.maximum"(%15, %16) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%17) : (tensor<i32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x3xi32>, tensor<i32>) -> tensor<2xi32>
    %18 = "stablehlo.constant"() {value = dense<0xFF80> : tensor<bf16>} : () -> tensor<bf16>
    %19 = "stablehlo.reduce"(%arg2, %18) ({
      ^bb0(%20: tensor<bf16>, %21: tensor<bf16>):
        %22 = "stablehlo.maximum"(%20, %21) : (tensor<bf16>, tensor<bf16>) -> tensor<bf16>
        "stablehlo.return"(%22) : (tensor<bf16>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4xbf16>, tensor<bf16>) -> tensor<bf16>
    %23 = "stablehlo.compare"(%arg2, %arg2) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<4xbf16>, tensor<4xbf16>) -> tensor<4xi1>
    %24 = "stablehlo.reduce"(%23, %6) ({
      ^bb0(%25: tensor<i1>, %26: tensor<i1>):
        %27 = "stablehlo.or"(%25, %26) : (tensor<i1>, tensor<i1>) -> tensor<i1>
        "stablehlo.return"(%27) : (tensor<i1>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4xi1>, tensor<i1>) -> tensor<i1>
    %28 = "stablehlo.constant"() {value = dense<0x7FC0> : tensor<bf16>} : () -> tensor<bf16>
    %29 = "stablehlo.select"(%24, %28, %19) : (tensor<i1>, tensor<bf16>, tensor<bf16>) -> tensor<bf16>
    func.return %12, %14, %29 : tensor<f32>, tensor<2xi32>, tensor<bf16>
  }
}
