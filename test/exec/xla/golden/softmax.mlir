module @softmax attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>, %arg1: tensor<4x2x3xf32>, %arg2: tensor<2x6xbf16>) -> (tensor<3x5xf32>, tensor<4x2x3xf32>, tensor<2x6xbf16>) {
    %0 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.reduce"(%arg0, %0) ({
      ^bb0(%2: tensor<f32>, %3: tensor<f32>):
        %4 = "stablehlo.maximum"(%2, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%4) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %5 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3x5xf32>
    %6 = "stablehlo.subtract"(%arg0, %5) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %7 = "stablehlo.exponential"(%6) : (tensor<3x5xf32>) -> tensor<3x5xf32>
    %8 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %9 = "stablehlo.reduce"(%7, %8) ({
      ^bb0(%10: tensor<f32>, %11: tensor<f32>):
        %12 = "stablehlo.add"(%10, %11) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%12) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<3x5xf32>, tensor<f32>) -> tensor<3xf32>
    %13 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64: 0>} : (tensor<3xf32>) -> tensor<3x5xf32>
    %14 = "stablehlo.divide"(%7, %13) : (tensor<3x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %15 = "stablehlo.reduce"(%arg1, %0) ({
      ^bb0(%16: tensor<f32>, %17: tensor<f32>):
        %18 = "stablehlo.maximum"(%16, %17) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%18) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4x2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %19 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
    %20 = "stablehlo.subtract"(%arg1, %19) : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
    %21 = "stablehlo.exponential"(%20) : (tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
    %22 = "stablehlo.reduce"(%21, %8) ({
      ^bb0(%23: tensor<f32>, %24: tensor<f32>):
        %25 = "stablehlo.add"(%23, %24) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%25) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<4x2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %26 = "stablehlo.broadcast_in_dim"(%22) {broadcast_dimensions = array<i64: 1, 2>} : (tensor<2x3xf32>) -> tensor<4x2x3xf32>
    %27 = "stablehlo.divide"(%21, %26) : (tensor<4x2x3xf32>, tensor<4x2x3xf32>) -> tensor<4x2x3xf32>
    %28 = "stablehlo.convert"(%arg2) : (tensor<2x6xbf16>) -> tensor<2x6xf32>
    %29 = "stablehlo.reduce"(%28, %0) ({
      ^bb0(%30: tensor<f32>, %31: tensor<f32>):
        %32 = "stablehlo.maximum"(%30, %31) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%32) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x6xf32>, tensor<f32>) -> tensor<2xf32>
    %33 = "stablehlo.broadcast_in_dim"(%29) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x6xf32>
    %34 = "stablehlo.subtract"(%28, %33) : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
    %35 = "stablehlo.exponential"(%34) : (tensor<2x6xf32>) -> tensor<2x6xf32>
    %36 = "stablehlo.reduce"(%35, %8) ({
      ^bb0(%37: tensor<f32>, %38: tensor<f32>):
        %39 = "stablehlo.add"(%37, %38) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%39) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<2x6xf32>, tensor<f32>) -> tensor<2xf32>
    %40 = "stablehlo.broadcast_in_dim"(%36) {broadcast_dimensions = array<i64: 0>} : (tensor<2xf32>) -> tensor<2x6xf32>
    %41 = "stablehlo.divide"(%35, %40) : (tensor<2x6xf32>, tensor<2x6xf32>) -> tensor<2x6xf32>
    %42 = "stablehlo.convert"(%41) : (tensor<2x6xf32>) -> tensor<2x6xbf16>
    func.return %14, %27, %42 : tensor<3x5xf32>, tensor<4x2x3xf32>, tensor<2x6xbf16>
  }
}
