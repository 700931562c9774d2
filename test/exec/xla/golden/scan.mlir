module @scan attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<4x2x3xf32>) -> (tensor<2x3xf32>, tensor<4xf32>) {
    %0 = "stablehlo.constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
    %1 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %29:5 = "stablehlo.while"(%1, %arg0, %arg2, %arg1, %0) ({
      ^bb0(%2: tensor<i32>, %3: tensor<3x3xf32>, %4: tensor<4x2x3xf32>, %5: tensor<2x3xf32>, %6: tensor<4xf32>):
        %7 = "stablehlo.constant"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
        %8 = "stablehlo.compare"(%2, %7) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        "stablehlo.return"(%8) : (tensor<i1>) -> ()
    }, {
      ^bb0(%9: tensor<i32>, %10: tensor<3x3xf32>, %11: tensor<4x2x3xf32>, %12: tensor<2x3xf32>, %13: tensor<4xf32>):
        %14 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
        %15 = "stablehlo.dynamic_slice"(%11, %9, %14, %14) {slice_sizes = array<i64: 1, 2, 3>} : (tensor<4x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
        %16 = "stablehlo.reshape"(%15) : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
        %17 = "stablehlo.dot_general"(%12, %10) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
        %18 = "stablehlo.add"(%17, %16) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        %19 = "stablehlo.tanh"(%18) : (tensor<2x3xf32>) -> tensor<2x3xf32>
        %20 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
        %21 = "stablehlo.reduce"(%19, %20) ({
          ^bb0(%22: tensor<f32>, %23: tensor<f32>):
            %24 = "stablehlo.add"(%22, %23) : (tensor<f32>, tensor<f32>) -> tensor<f32>
            "stablehlo.return"(%24) : (tensor<f32>) -> ()
        }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
        %25 = "stablehlo.reshape"(%21) : (tensor<f32>) -> tensor<1xf32>
        %26 = "stablehlo.dynamic_update_slice"(%13, %25, %9) : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
        %27 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
        %28 = "stablehlo.add"(%9, %27) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%28, %10, %11, %19, %26) : (tensor<i32>, tensor<3x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<4xf32>) -> ()
    }) : (tensor<i32>, tensor<3x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<4xf32>) -> (tensor<i32>, tensor<3x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<4xf32>)
    func.return %29#3, %29#4 : tensor<2x3xf32>, tensor<4xf32>
  }
}
