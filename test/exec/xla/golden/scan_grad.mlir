module @scan_grad attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xf32>, %arg1: tensor<2x3xf32>, %arg2: tensor<4x2x3xf32>) -> (tensor<3x3xf32>, tensor<2x3xf32>) {
    %0 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %2 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %3 = "stablehlo.constant"() {value = dense<0.0> : tensor<4xf32>} : () -> tensor<4xf32>
    %4 = "stablehlo.constant"() {value = dense<0.0> : tensor<4x2x3xf32>} : () -> tensor<4x2x3xf32>
    %5 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %43:7 = "stablehlo.while"(%5, %arg0, %arg2, %arg1, %3, %4, %4) ({
      ^bb0(%6: tensor<i32>, %7: tensor<3x3xf32>, %8: tensor<4x2x3xf32>, %9: tensor<2x3xf32>, %10: tensor<4xf32>, %11: tensor<4x2x3xf32>, %12: tensor<4x2x3xf32>):
        %13 = "stablehlo.constant"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
        %14 = "stablehlo.compare"(%6, %13) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        "stablehlo.return"(%14) : (tensor<i1>) -> ()
    }, {
      ^bb0(%15: tensor<i32>, %16: tensor<3x3xf32>, %17: tensor<4x2x3xf32>, %18: tensor<2x3xf32>, %19: tensor<4xf32>, %20: tensor<4x2x3xf32>, %21: tensor<4x2x3xf32>):
        %22 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
        %23 = "stablehlo.constant"() {value = dense<3> : tensor<i32>} : () -> tensor<i32>
        %24 = "stablehlo.subtract"(%23, %15) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        %25 = "stablehlo.dynamic_slice"(%17, %24, %22, %22) {slice_sizes = array<i64: 1, 2, 3>} : (tensor<4x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
        %26 = "stablehlo.reshape"(%25) : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
        %27 = "stablehlo.dot_general"(%18, %16) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
        %28 = "stablehlo.add"(%27, %26) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        %29 = "stablehlo.tanh"(%28) : (tensor<2x3xf32>) -> tensor<2x3xf32>
        %30 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
        %31 = "stablehlo.reduce"(%29, %30) ({
          ^bb0(%32: tensor<f32>, %33: tensor<f32>):
            %34 = "stablehlo.add"(%32, %33) : (tensor<f32>, tensor<f32>) -> tensor<f32>
            "stablehlo.return"(%34) : (tensor<f32>) -> ()
        }) {dimensions = array<i64: 0, 1>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<f32>
        %35 = "stablehlo.reshape"(%31) : (tensor<f32>) -> tensor<1xf32>
        %36 = "stablehlo.dynamic_update_slice"(%19, %35, %24) : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
        %37 = "stablehlo.reshape"(%18) : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
        %38 = "stablehlo.dynamic_update_slice"(%20, %37, %24, %22, %22) : (tensor<4x2x3xf32>, tensor<1x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x2x3xf32>
        %39 = "stablehlo.reshape"(%29) : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
        %40 = "stablehlo.dynamic_update_slice"(%21, %39, %24, %22, %22) : (tensor<4x2x3xf32>, tensor<1x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x2x3xf32>
        %41 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
        %42 = "stablehlo.add"(%15, %41) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%42, %16, %17, %29, %36, %38, %40) : (tensor<i32>, tensor<3x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<4xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> ()
    }) : (tensor<i32>, tensor<3x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<4xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> (tensor<i32>, tensor<3x3xf32>, tensor<4x2x3xf32>, tensor<2x3xf32>, tensor<4xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>)
    %44 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %45 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x3xf32>
    %46 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<3x3xf32>
    %92:10 = "stablehlo.while"(%5, %2, %arg0, %43#5, %43#6, %arg2, %44, %46, %45, %4) ({
      ^bb0(%47: tensor<i32>, %48: tensor<f32>, %49: tensor<3x3xf32>, %50: tensor<4x2x3xf32>, %51: tensor<4x2x3xf32>, %52: tensor<4x2x3xf32>, %53: tensor<4xf32>, %54: tensor<3x3xf32>, %55: tensor<2x3xf32>, %56: tensor<4x2x3xf32>):
        %57 = "stablehlo.constant"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
        %58 = "stablehlo.compare"(%47, %57) {comparison_direction = #stablehlo<comparison_direction LT>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<i32>, tensor<i32>) -> tensor<i1>
        "stablehlo.return"(%58) : (tensor<i1>) -> ()
    }, {
      ^bb0(%59: tensor<i32>, %60: tensor<f32>, %61: tensor<3x3xf32>, %62: tensor<4x2x3xf32>, %63: tensor<4x2x3xf32>, %64: tensor<4x2x3xf32>, %65: tensor<4xf32>, %66: tensor<3x3xf32>, %67: tensor<2x3xf32>, %68: tensor<4x2x3xf32>):
        %69 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
        %70 = "stablehlo.dynamic_slice"(%62, %59, %69, %69) {slice_sizes = array<i64: 1, 2, 3>} : (tensor<4x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
        %71 = "stablehlo.reshape"(%70) : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
        %72 = "stablehlo.dynamic_slice"(%63, %59, %69, %69) {slice_sizes = array<i64: 1, 2, 3>} : (tensor<4x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
        %73 = "stablehlo.reshape"(%72) : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
        %74 = "stablehlo.dynamic_slice"(%64, %59, %69, %69) {slice_sizes = array<i64: 1, 2, 3>} : (tensor<4x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
        %75 = "stablehlo.reshape"(%74) : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
        %76 = "stablehlo.dynamic_slice"(%65, %59) {slice_sizes = array<i64: 1>} : (tensor<4xf32>, tensor<i32>) -> tensor<1xf32>
        %77 = "stablehlo.reshape"(%76) : (tensor<1xf32>) -> tensor<f32>
        %78 = "stablehlo.broadcast_in_dim"(%77) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x3xf32>
        %79 = "stablehlo.add"(%67, %78) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        %80 = "stablehlo.multiply"(%73, %73) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        %81 = "stablehlo.broadcast_in_dim"(%60) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<2x3xf32>
        %82 = "stablehlo.subtract"(%81, %80) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        %83 = "stablehlo.multiply"(%79, %82) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
        %84 = "stablehlo.dot_general"(%83, %61) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
        %85 = "stablehlo.dot_general"(%83, %71) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
        %86 = "stablehlo.transpose"(%85) {permutation = array<i64: 1, 0>} : (tensor<3x3xf32>) -> tensor<3x3xf32>
        %87 = "stablehlo.add"(%66, %86) : (tensor<3x3xf32>, tensor<3x3xf32>) -> tensor<3x3xf32>
        %88 = "stablehlo.reshape"(%83) : (tensor<2x3xf32>) -> tensor<1x2x3xf32>
        %89 = "stablehlo.dynamic_update_slice"(%68, %88, %59, %69, %69) : (tensor<4x2x3xf32>, tensor<1x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<4x2x3xf32>
        %90 = "stablehlo.constant"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
        %91 = "stablehlo.add"(%59, %90) : (tensor<i32>, tensor<i32>) -> tensor<i32>
        "stablehlo.return"(%91, %60, %61, %62, %63, %64, %65, %87, %84, %89) : (tensor<i32>, tensor<f32>, tensor<3x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>) -> ()
    }) : (tensor<i32>, tensor<f32>, tensor<3x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>) -> (tensor<i32>, tensor<f32>, tensor<3x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4x2x3xf32>, tensor<4xf32>, tensor<3x3xf32>, tensor<2x3xf32>, tensor<4x2x3xf32>)
    func.return %92#7, %92#8 : tensor<3x3xf32>, tensor<2x3xf32>
  }
}
