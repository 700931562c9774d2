module @mlp_train_step attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<4xf32> {tf.aliasing_output = 2 : i32}, %arg2: tensor<8x16xf32> {tf.aliasing_output = 3 : i32}, %arg3: tensor<16x4xf32> {tf.aliasing_output = 4 : i32}, %arg4: tensor<16xf32> {tf.aliasing_output = 5 : i32}, %arg5: tensor<4xf32> {tf.aliasing_output = 6 : i32}, %arg6: tensor<8x16xf32> {tf.aliasing_output = 7 : i32}, %arg7: tensor<16x4xf32> {tf.aliasing_output = 8 : i32}, %arg8: tensor<f32> {tf.aliasing_output = 0 : i32}, %arg9: tensor<16xf32> {tf.aliasing_output = 10 : i32}, %arg10: tensor<4xf32> {tf.aliasing_output = 11 : i32}, %arg11: tensor<8x16xf32> {tf.aliasing_output = 12 : i32}, %arg12: tensor<16x4xf32> {tf.aliasing_output = 13 : i32}, %arg13: tensor<16x8xf32>, %arg14: tensor<16xi32>, %arg15: tensor<f32>) -> (tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>) {
    %0 = "stablehlo.constant"() {value = dense<-100> : tensor<i32>} : () -> tensor<i32>
    %1 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %2 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %3 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %4 = "stablehlo.constant"() {value = dense<-0.7071067690849304> : tensor<f32>} : () -> tensor<f32>
    %5 = "stablehlo.constant"() {value = dense<1.128379225730896> : tensor<f32>} : () -> tensor<f32>
    %6 = "stablehlo.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
    %7 = "stablehlo.constant"() {value = dense<0.8999999761581421> : tensor<f32>} : () -> tensor<f32>
    %8 = "stablehlo.constant"() {value = dense<0.9990000128746033> : tensor<f32>} : () -> tensor<f32>
    %9 = "stablehlo.constant"() {value = dense<0.8999999761581421> : tensor<f32>} : () -> tensor<f32>
    %10 = "stablehlo.constant"() {value = dense<0.10000000149011612> : tensor<f32>} : () -> tensor<f32>
    %11 = "stablehlo.constant"() {value = dense<0.9990000128746033> : tensor<f32>} : () -> tensor<f32>
    %12 = "stablehlo.constant"() {value = dense<0.0010000000474974513> : tensor<f32>} : () -> tensor<f32>
    %13 = "stablehlo.constant"() {value = dense<9.99999993922529e-9> : tensor<f32>} : () -> tensor<f32>
    %14 = "stablehlo.constant"() {value = dense<0.009999999776482582> : tensor<f32>} : () -> tensor<f32>
    %15 = "stablehlo.dot_general"(%arg13, %arg2) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    %16 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 1>} : (tensor<16xf32>) -> tensor<16x16xf32>
    %17 = "stablehlo.add"(%15, %16) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %18 = "stablehlo.constant"() {value = dense<-0.7071067690849304> : tensor<16x16xf32>} : () -> tensor<16x16xf32>
    %19 = "stablehlo.multiply"(%17, %18) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %20 = "chlo.erfc"(%19) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %21 = "stablehlo.constant"() {value = dense<0.5> : tensor<16x16xf32>} : () -> tensor<16x16xf32>
    %22 = "stablehlo.multiply"(%17, %21) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %23 = "stablehlo.multiply"(%22, %20) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %24 = "stablehlo.dot_general"(%23, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %25 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<16x4xf32>
    %26 = "stablehlo.add"(%24, %25) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %27 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %28 = "stablehlo.compare"(%arg14, %27) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %29 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %30 = "stablehlo.select"(%28, %arg14, %29) : (tensor<16xi1>, tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %31 = "stablehlo.convert"(%28) : (tensor<16xi1>) -> tensor<16xf32>
    %32 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %33 = "stablehlo.reduce"(%26, %32) ({
      ^bb0(%34: tensor<f32>, %35: tensor<f32>):
        %36 = "stablehlo.maximum"(%34, %35) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%36) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %37 = "stablehlo.is_finite"(%33) : (tensor<16xf32>) -> tensor<16xi1>
    %38 = "stablehlo.constant"() {value = dense<0.0> : tensor<16xf32>} : () -> tensor<16xf32>
    %39 = "stablehlo.select"(%37, %33, %38) : (tensor<16xi1>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %40 = "stablehlo.broadcast_in_dim"(%39) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %41 = "stablehlo.subtract"(%26, %40) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %42 = "stablehlo.exponential"(%41) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %43 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %44 = "stablehlo.reduce"(%42, %43) ({
      ^bb0(%45: tensor<f32>, %46: tensor<f32>):
        %47 = "stablehlo.add"(%45, %46) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%47) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %48 = "stablehlo.log"(%44) : (tensor<16xf32>) -> tensor<16xf32>
    %49 = "stablehlo.add"(%48, %39) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %50 = "stablehlo.constant"() {value = dense<0> : tensor<16xi32>} : () -> tensor<16xi32>
    %51 = "stablehlo.maximum"(%30, %50) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %52 = "stablehlo.constant"() {value = dense<3> : tensor<16xi32>} : () -> tensor<16xi32>
    %53 = "stablehlo.minimum"(%51, %52) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %54 = "stablehlo.broadcast_in_dim"(%53) {broadcast_dimensions = array<i64: 0>} : (tensor<16xi32>) -> tensor<16x4xi32>
    %55 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<16x4xi32>
    %56 = "stablehlo.compare"(%55, %54) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16x4xi32>, tensor<16x4xi32>) -> tensor<16x4xi1>
    %57 = "stablehlo.constant"() {value = dense<0.0> : tensor<16x4xf32>} : () -> tensor<16x4xf32>
    %58 = "stablehlo.select"(%56, %26, %57) : (tensor<16x4xi1>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %59 = "stablehlo.reduce"(%58, %43) ({
      ^bb0(%60: tensor<f32>, %61: tensor<f32>):
        %62 = "stablehlo.add"(%60, %61) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%62) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %63 = "stablehlo.subtract"(%49, %59) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %64 = "stablehlo.multiply"(%63, %31) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %65 = "stablehlo.reduce"(%64, %43) ({
      ^bb0(%66: tensor<f32>, %67: tensor<f32>):
        %68 = "stablehlo.add"(%66, %67) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%68) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %69 = "stablehlo.reduce"(%31, %43) ({
      ^bb0(%70: tensor<f32>, %71: tensor<f32>):
        %72 = "stablehlo.add"(%70, %71) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%72) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %73 = "stablehlo.maximum"(%69, %2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %74 = "stablehlo.compare"(%69, %69) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %75 = "stablehlo.compare"(%2, %2) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %76 = "stablehlo.select"(%75, %2, %73) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %77 = "stablehlo.select"(%74, %69, %76) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %78 = "stablehlo.divide"(%65, %77) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %79 = "stablehlo.divide"(%3, %77) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %80 = "stablehlo.broadcast_in_dim"(%79) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %81 = "stablehlo.multiply"(%80, %31) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %82 = "stablehlo.reduce"(%26, %32) ({
      ^bb0(%83: tensor<f32>, %84: tensor<f32>):
        %85 = "stablehlo.maximum"(%83, %84) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%85) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %86 = "stablehlo.is_finite"(%82) : (tensor<16xf32>) -> tensor<16xi1>
    %87 = "stablehlo.select"(%86, %82, %38) : (tensor<16xi1>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %88 = "stablehlo.broadcast_in_dim"(%87) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %89 = "stablehlo.subtract"(%26, %88) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %90 = "stablehlo.exponential"(%89) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %91 = "stablehlo.reduce"(%90, %43) ({
      ^bb0(%92: tensor<f32>, %93: tensor<f32>):
        %94 = "stablehlo.add"(%92, %93) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%94) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %95 = "stablehlo.log"(%91) : (tensor<16xf32>) -> tensor<16xf32>
    %96 = "stablehlo.add"(%95, %87) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %97 = "stablehlo.maximum"(%30, %50) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %98 = "stablehlo.minimum"(%97, %52) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %99 = "stablehlo.broadcast_in_dim"(%98) {broadcast_dimensions = array<i64: 0>} : (tensor<16xi32>) -> tensor<16x4xi32>
    %100 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<16x4xi32>
    %101 = "stablehlo.compare"(%100, %99) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16x4xi32>, tensor<16x4xi32>) -> tensor<16x4xi1>
    %102 = "stablehlo.broadcast_in_dim"(%96) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %103 = "stablehlo.subtract"(%26, %102) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %104 = "stablehlo.exponential"(%103) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %105 = "stablehlo.constant"() {value = dense<1.0> : tensor<16x4xf32>} : () -> tensor<16x4xf32>
    %106 = "stablehlo.select"(%101, %105, %57) : (tensor<16x4xi1>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %107 = "stablehlo.broadcast_in_dim"(%81) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %108 = "stablehlo.subtract"(%104, %106) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %109 = "stablehlo.multiply"(%108, %107) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %110 = "stablehlo.reduce"(%109, %43) ({
      ^bb0(%111: tensor<f32>, %112: tensor<f32>):
        %113 = "stablehlo.add"(%111, %112) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%113) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<4xf32>
    %114 = "stablehlo.dot_general"(%109, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x16xf32>
    %115 = "stablehlo.dot_general"(%109, %23) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x4xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %116 = "stablehlo.transpose"(%115) {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %117 = "stablehlo.broadcast_in_dim"(%4) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %118 = "stablehlo.multiply"(%17, %117) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %119 = "stablehlo.multiply"(%118, %118) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %120 = "stablehlo.exponential"(%119) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %121 = "stablehlo.divide"(%118, %120) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %122 = "stablehlo.broadcast_in_dim"(%5) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %123 = "stablehlo.multiply"(%121, %122) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %124 = "chlo.erf"(%118) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %125 = "stablehlo.add"(%124, %123) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %126 = "stablehlo.broadcast_in_dim"(%3) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %127 = "stablehlo.subtract"(%126, %125) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %128 = "stablehlo.multiply"(%114, %127) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %129 = "stablehlo.broadcast_in_dim"(%6) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %130 = "stablehlo.multiply"(%128, %129) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %131 = "stablehlo.reduce"(%130, %43) ({
      ^bb0(%132: tensor<f32>, %133: tensor<f32>):
        %134 = "stablehlo.add"(%132, %133) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%134) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
    %135 = "stablehlo.dot_general"(%130, %arg13) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %136 = "stablehlo.transpose"(%135) {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %137 = "stablehlo.add"(%arg8, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %138 = "stablehlo.broadcast_in_dim"(%7) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>
    %139 = "stablehlo.power"(%138, %137) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %140 = "stablehlo.subtract"(%3, %139) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %141 = "stablehlo.broadcast_in_dim"(%8) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>
    %142 = "stablehlo.power"(%141, %137) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %143 = "stablehlo.subtract"(%3, %142) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %144 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %145 = "stablehlo.multiply"(%arg4, %144) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %146 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %147 = "stablehlo.multiply"(%131, %146) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %148 = "stablehlo.add"(%145, %147) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %149 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %150 = "stablehlo.multiply"(%arg5, %149) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %151 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %152 = "stablehlo.multiply"(%110, %151) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %153 = "stablehlo.add"(%150, %152) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %154 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %155 = "stablehlo.multiply"(%arg6, %154) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %156 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %157 = "stablehlo.multiply"(%136, %156) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %158 = "stablehlo.add"(%155, %157) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %159 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %160 = "stablehlo.multiply"(%arg7, %159) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %161 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %162 = "stablehlo.multiply"(%116, %161) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %163 = "stablehlo.add"(%160, %162) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %164 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %165 = "stablehlo.multiply"(%arg9, %164) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %166 = "stablehlo.multiply"(%131, %131) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %167 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %168 = "stablehlo.multiply"(%166, %167) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %169 = "stablehlo.add"(%165, %168) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %170 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %171 = "stablehlo.multiply"(%arg10, %170) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %172 = "stablehlo.multiply"(%110, %110) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %173 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %174 = "stablehlo.multiply"(%172, %173) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %175 = "stablehlo.add"(%171, %174) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %176 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %177 = "stablehlo.multiply"(%arg11, %176) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %178 = "stablehlo.multiply"(%136, %136) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %179 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %180 = "stablehlo.multiply"(%178, %179) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %181 = "stablehlo.add"(%177, %180) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %182 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %183 = "stablehlo.multiply"(%arg12, %182) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %184 = "stablehlo.multiply"(%116, %116) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %185 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %186 = "stablehlo.multiply"(%184, %185) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %187 = "stablehlo.add"(%183, %186) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %188 = "stablehlo.broadcast_in_dim"(%140) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %189 = "stablehlo.divide"(%148, %188) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %190 = "stablehlo.broadcast_in_dim"(%143) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %191 = "stablehlo.divide"(%169, %190) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %192 = "stablehlo.sqrt"(%191) : (tensor<16xf32>) -> tensor<16xf32>
    %193 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %194 = "stablehlo.add"(%192, %193) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %195 = "stablehlo.divide"(%189, %194) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %196 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %197 = "stablehlo.multiply"(%arg0, %196) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %198 = "stablehlo.add"(%195, %197) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %199 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %200 = "stablehlo.multiply"(%199, %198) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %201 = "stablehlo.subtract"(%arg0, %200) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %202 = "stablehlo.broadcast_in_dim"(%140) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %203 = "stablehlo.divide"(%153, %202) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %204 = "stablehlo.broadcast_in_dim"(%143) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %205 = "stablehlo.divide"(%175, %204) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %206 = "stablehlo.sqrt"(%205) : (tensor<4xf32>) -> tensor<4xf32>
    %207 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %208 = "stablehlo.add"(%206, %207) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %209 = "stablehlo.divide"(%203, %208) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %210 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %211 = "stablehlo.multiply"(%arg1, %210) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %212 = "stablehlo.add"(%209, %211) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %213 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %214 = "stablehlo.multiply"(%213, %212) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %215 = "stablehlo.subtract"(%arg1, %214) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %216 = "stablehlo.broadcast_in_dim"(%140) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %217 = "stablehlo.divide"(%158, %216) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %218 = "stablehlo.broadcast_in_dim"(%143) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %219 = "stablehlo.divide"(%181, %218) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %220 = "stablehlo.sqrt"(%219) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %221 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %222 = "stablehlo.add"(%220, %221) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %223 = "stablehlo.divide"(%217, %222) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %224 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %225 = "stablehlo.multiply"(%arg2, %224) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %226 = "stablehlo.add"(%223, %225) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %227 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %228 = "stablehlo.multiply"(%227, %226) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %229 = "stablehlo.subtract"(%arg2, %228) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %230 = "stablehlo.broadcast_in_dim"(%140) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %231 = "stablehlo.divide"(%163, %230) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %232 = "stablehlo.broadcast_in_dim"(%143) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %233 = "stablehlo.divide"(%187, %232) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %234 = "stablehlo.sqrt"(%233) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %235 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %236 = "stablehlo.add"(%234, %235) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %237 = "stablehlo.divide"(%231, %236) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %238 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %239 = "stablehlo.multiply"(%arg3, %238) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %240 = "stablehlo.add"(%237, %239) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %241 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %242 = "stablehlo.multiply"(%241, %240) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %243 = "stablehlo.subtract"(%arg3, %242) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    func.return %78, %201, %215, %229, %243, %148, %153, %158, %163, %137, %169, %175, %181, %187 : tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>
  }
}
