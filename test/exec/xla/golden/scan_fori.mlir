module @scan_fori attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32>) -> (tensor<2x3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %1 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %2 = "stablehlo.constant"() {value = dense<2.0> : tensor<f32>} : () -> tensor<f32>
    %3 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<i32>
    %4 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %26:5 = "stablehlo.while"(%4, %1, %2, %3, %arg0) ({
      ^bb0(%5: tensor<i32>, %6: tensor<i32>, %7: tensor<f32>, %8: tensor<i32>, %9: tensor<2x3xf32>):
        %10 = "stablehlo.constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
        %11 = "stablehlo.compare"(%5, %10) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        "stablehlo.return"(%11) : (tensor<i1>) -> ()
    }, {
      ^bb0(%12: tensor<i32>, %13: tensor<i32>, %14: tensor<f32>, %15: tensor<i32>, %16: tensor<2x3xf32>):
        %17 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
        %18 = "stablehlo.add"(%15, %13) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        %19 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x3xf32>
        %20 = "stablehlo.multiply"(%16, %19) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        %21 = "stablehlo.convert"(%15) : (tensor<i32>) -> tensor<f32>
        %22 = "stablehlo.broadcast_in_dim"(%21) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x3xf32>
        %23 = "stablehlo.add"(%20, %22) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        %24 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
        %25 = "stablehlo.add"(%12, %24) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%25, %13, %14, %18, %23) : (tensor<i32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<2x3xf32>) -> ()
    }) : (tensor<i32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<2x3xf32>) -> (tensor<i32>, tensor<i32>, tensor<f32>, tensor<i32>, tensor<2x3xf32>)
    func.return %26#4 : tensor<2x3xf32>
  }
}
