module @mlp_train_step attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<4xf32> {tf.aliasing_output = 2 : i32}, %arg2: tensor<8x16xf32> {tf.aliasing_output = 3 : i32}, %arg3: tensor<16x4xf32> {tf.aliasing_output = 4 : i32}, %arg4: tensor<16xf32> {tf.aliasing_output = 5 : i32}, %arg5: tensor<4xf32> {tf.aliasing_output = 6 : i32}, %arg6: tensor<8x16xf32> {tf.aliasing_output = 7 : i32}, %arg7: tensor<16x4xf32> {tf.aliasing_output = 8 : i32}, %arg8: tensor<f32> {tf.aliasing_output = 0 : i32}, %arg9: tensor<16xf32> {tf.aliasing_output = 10 : i32}, %arg10: tensor<4xf32> {tf.aliasing_output = 11 : i32}, %arg11: tensor<8x16xf32> {tf.aliasing_output = 12 : i32}, %arg12: tensor<16x4xf32> {tf.aliasing_output = 13 : i32}, %arg13: tensor<16x8xf32>, %arg14: tensor<16xi32>, %arg15: tensor<f32>) -> (tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>) {
    %0 = "stablehlo.constant"() {value = dense<-100> : tensor<i32>} : () -> tensor<i32>
    %1 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %2 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %3 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %4 = "stablehlo.constant"() {value = dense<0.7071067690849304> : tensor<f32>} : () -> tensor<f32>
    %5 = "stablehlo.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
    %6 = "stablehlo.constant"() {value = dense<-0.5> : tensor<f32>} : () -> tensor<f32>
    %7 = "stablehlo.constant"() {value = dense<0.3989422917366028> : tensor<f32>} : () -> tensor<f32>
    %8 = "stablehlo.constant"() {value = dense<0.8999999761581421> : tensor<f32>} : () -> tensor<f32>
    %9 = "stablehlo.constant"() {value = dense<0.9990000128746033> : tensor<f32>} : () -> tensor<f32>
    %10 = "stablehlo.constant"() {value = dense<0.8999999761581421> : tensor<f32>} : () -> tensor<f32>
    %11 = "stablehlo.constant"() {value = dense<0.10000000149011612> : tensor<f32>} : () -> tensor<f32>
    %12 = "stablehlo.constant"() {value = dense<0.9990000128746033> : tensor<f32>} : () -> tensor<f32>
    %13 = "stablehlo.constant"() {value = dense<0.0010000000474974513> : tensor<f32>} : () -> tensor<f32>
    %14 = "stablehlo.constant"() {value = dense<9.99999993922529e-9> : tensor<f32>} : () -> tensor<f32>
    %15 = "stablehlo.constant"() {value = dense<0.009999999776482582> : tensor<f32>} : () -> tensor<f32>
    %16 = "stablehlo.dot_general"(%arg13, %arg2) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    %17 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 1>} : (tensor<16xf32>) -> tensor<16x16xf32>
    %18 = "stablehlo.add"(%16, %17) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %19 = "stablehlo.constant"() {value = dense<-0.7071067690849304> : tensor<16x16xf32>} : () -> tensor<16x16xf32>
    %20 = "stablehlo.multiply"(%18, %19) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %21 = "chlo.erfc"(%20) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %22 = "stablehlo.constant"() {value = dense<0.5> : tensor<16x16xf32>} : () -> tensor<16x16xf32>
    %23 = "stablehlo.multiply"(%18, %22) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %24 = "stablehlo.multiply"(%23, %21) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %25 = "stablehlo.dot_general"(%24, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %26 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<16x4xf32>
    %27 = "stablehlo.add"(%25, %26) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %28 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %29 = "stablehlo.compare"(%arg14, %28) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %30 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %31 = "stablehlo.select"(%29, %arg14, %30) : (tensor<16xi1>, tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %32 = "stablehlo.convert"(%29) : (tensor<16xi1>) -> tensor<16xf32>
    %33 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %34 = "stablehlo.reduce"(%27, %33) ({
      ^bb0(%35: tensor<f32>, %36: tensor<f32>):
        %37 = "stablehlo.maximum"(%35, %36) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%37) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %38 = "stablehlo.is_finite"(%34) : (tensor<16xf32>) -> tensor<16xi1>
    %39 = "stablehlo.constant"() {value = dense<0.0> : tensor<16xf32>} : () -> tensor<16xf32>
    %40 = "stablehlo.select"(%38, %34, %39) : (tensor<16xi1>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %41 = "stablehlo.broadcast_in_dim"(%40) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %42 = "stablehlo.subtract"(%27, %41) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %43 = "stablehlo.exponential"(%42) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %44 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %45 = "stablehlo.reduce"(%43, %44) ({
      ^bb0(%46: tensor<f32>, %47: tensor<f32>):
        %48 = "stablehlo.add"(%46, %47) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%48) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %49 = "stablehlo.log"(%45) : (tensor<16xf32>) -> tensor<16xf32>
    %50 = "stablehlo.add"(%49, %40) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %51 = "stablehlo.constant"() {value = dense<0> : tensor<16xi32>} : () -> tensor<16xi32>
    %52 = "stablehlo.maximum"(%31, %51) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %53 = "stablehlo.constant"() {value = dense<3> : tensor<16xi32>} : () -> tensor<16xi32>
    %54 = "stablehlo.minimum"(%52, %53) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %55 = "stablehlo.broadcast_in_dim"(%54) {broadcast_dimensions = array<i64: 0>} : (tensor<16xi32>) -> tensor<16x4xi32>
    %56 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<16x4xi32>
    %57 = "stablehlo.compare"(%56, %55) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16x4xi32>, tensor<16x4xi32>) -> tensor<16x4xi1>
    %58 = "stablehlo.constant"() {value = dense<0.0> : tensor<16x4xf32>} : () -> tensor<16x4xf32>
    %59 = "stablehlo.select"(%57, %27, %58) : (tensor<16x4xi1>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %60 = "stablehlo.reduce"(%59, %44) ({
      ^bb0(%61: tensor<f32>, %62: tensor<f32>):
        %63 = "stablehlo.add"(%61, %62) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%63) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %64 = "stablehlo.subtract"(%50, %60) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %65 = "stablehlo.multiply"(%64, %32) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %66 = "stablehlo.reduce"(%65, %44) ({
      ^bb0(%67: tensor<f32>, %68: tensor<f32>):
        %69 = "stablehlo.add"(%67, %68) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%69) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %70 = "stablehlo.reduce"(%32, %44) ({
      ^bb0(%71: tensor<f32>, %72: tensor<f32>):
        %73 = "stablehlo.add"(%71, %72) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%73) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %74 = "stablehlo.maximum"(%70, %2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %75 = "stablehlo.compare"(%70, %70) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %76 = "stablehlo.compare"(%2, %2) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type FLOAT>} : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %77 = "stablehlo.select"(%76, %2, %74) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %78 = "stablehlo.select"(%75, %70, %77) : (tensor<i1>, tensor<f32>, tensor<f32>) -> tensor<f32>
    %79 = "stablehlo.divide"(%66, %78) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %80 = "stablehlo.divide"(%3, %78) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %81 = "stablehlo.broadcast_in_dim"(%80) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %82 = "stablehlo.multiply"(%81, %32) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %83 = "stablehlo.reduce"(%27, %33) ({
      ^bb0(%84: tensor<f32>, %85: tensor<f32>):
        %86 = "stablehlo.maximum"(%84, %85) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%86) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %87 = "stablehlo.is_finite"(%83) : (tensor<16xf32>) -> tensor<16xi1>
    %88 = "stablehlo.select"(%87, %83, %39) : (tensor<16xi1>, tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %89 = "stablehlo.broadcast_in_dim"(%88) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %90 = "stablehlo.subtract"(%27, %89) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %91 = "stablehlo.exponential"(%90) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %92 = "stablehlo.reduce"(%91, %44) ({
      ^bb0(%93: tensor<f32>, %94: tensor<f32>):
        %95 = "stablehlo.add"(%93, %94) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%95) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %96 = "stablehlo.log"(%92) : (tensor<16xf32>) -> tensor<16xf32>
    %97 = "stablehlo.add"(%96, %88) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %98 = "stablehlo.maximum"(%31, %51) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %99 = "stablehlo.minimum"(%98, %53) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %100 = "stablehlo.broadcast_in_dim"(%99) {broadcast_dimensions = array<i64: 0>} : (tensor<16xi32>) -> tensor<16x4xi32>
    %101 = "stablehlo.iota"() {iota_dimension = 1 : i64} : () -> tensor<16x4xi32>
    %102 = "stablehlo.compare"(%101, %100) {comparison_direction = #stablehlo<comparison_direction EQ>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16x4xi32>, tensor<16x4xi32>) -> tensor<16x4xi1>
    %103 = "stablehlo.broadcast_in_dim"(%97) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %104 = "stablehlo.subtract"(%27, %103) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %105 = "stablehlo.exponential"(%104) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %106 = "stablehlo.constant"() {value = dense<1.0> : tensor<16x4xf32>} : () -> tensor<16x4xf32>
    %107 = "stablehlo.select"(%102, %106, %58) : (tensor<16x4xi1>, tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %108 = "stablehlo.broadcast_in_dim"(%82) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %109 = "stablehlo.subtract"(%105, %107) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %110 = "stablehlo.multiply"(%109, %108) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %111 = "stablehlo.reduce"(%110, %44) ({
      ^bb0(%112: tensor<f32>, %113: tensor<f32>):
        %114 = "stablehlo.add"(%112, %113) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%114) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<4xf32>
    %115 = "stablehlo.dot_general"(%110, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x16xf32>
    %116 = "stablehlo.dot_general"(%110, %24) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x4xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %117 = "stablehlo.transpose"(%116) {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %118 = "stablehlo.broadcast_in_dim"(%4) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %119 = "stablehlo.multiply"(%18, %118) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %120 = "chlo.erf"(%119) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %121 = "stablehlo.broadcast_in_dim"(%3) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %122 = "stablehlo.add"(%120, %121) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %123 = "stablehlo.broadcast_in_dim"(%5) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %124 = "stablehlo.multiply"(%122, %123) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %125 = "stablehlo.multiply"(%18, %18) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %126 = "stablehlo.broadcast_in_dim"(%6) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %127 = "stablehlo.multiply"(%125, %126) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %128 = "stablehlo.exponential"(%127) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %129 = "stablehlo.broadcast_in_dim"(%7) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %130 = "stablehlo.multiply"(%128, %129) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %131 = "stablehlo.multiply"(%18, %130) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %132 = "stablehlo.add"(%124, %131) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %133 = "stablehlo.multiply"(%115, %132) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %134 = "stablehlo.reduce"(%133, %44) ({
      ^bb0(%135: tensor<f32>, %136: tensor<f32>):
        %137 = "stablehlo.add"(%135, %136) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%137) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
    %138 = "stablehlo.dot_general"(%133, %arg13) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %139 = "stablehlo.transpose"(%138) {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %140 = "stablehlo.add"(%arg8, %3) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %141 = "stablehlo.broadcast_in_dim"(%8) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>
    %142 = "stablehlo.power"(%141, %140) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %143 = "stablehlo.subtract"(%3, %142) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %144 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>
    %145 = "stablehlo.power"(%144, %140) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %146 = "stablehlo.subtract"(%3, %145) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %147 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %148 = "stablehlo.multiply"(%arg4, %147) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %149 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %150 = "stablehlo.multiply"(%134, %149) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %151 = "stablehlo.add"(%148, %150) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %152 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %153 = "stablehlo.multiply"(%arg5, %152) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %154 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %155 = "stablehlo.multiply"(%111, %154) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %156 = "stablehlo.add"(%153, %155) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %157 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %158 = "stablehlo.multiply"(%arg6, %157) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %159 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %160 = "stablehlo.multiply"(%139, %159) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %161 = "stablehlo.add"(%158, %160) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %162 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %163 = "stablehlo.multiply"(%arg7, %162) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %164 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %165 = "stablehlo.multiply"(%117, %164) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %166 = "stablehlo.add"(%163, %165) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %167 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %168 = "stablehlo.multiply"(%arg9, %167) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %169 = "stablehlo.multiply"(%134, %134) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %170 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %171 = "stablehlo.multiply"(%169, %170) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %172 = "stablehlo.add"(%168, %171) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %173 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %174 = "stablehlo.multiply"(%arg10, %173) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %175 = "stablehlo.multiply"(%111, %111) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %176 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %177 = "stablehlo.multiply"(%175, %176) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %178 = "stablehlo.add"(%174, %177) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %179 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %180 = "stablehlo.multiply"(%arg11, %179) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %181 = "stablehlo.multiply"(%139, %139) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %182 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %183 = "stablehlo.multiply"(%181, %182) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %184 = "stablehlo.add"(%180, %183) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %185 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %186 = "stablehlo.multiply"(%arg12, %185) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %187 = "stablehlo.multiply"(%117, %117) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %188 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %189 = "stablehlo.multiply"(%187, %188) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %190 = "stablehlo.add"(%186, %189) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %191 = "stablehlo.broadcast_in_dim"(%143) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %192 = "stablehlo.divide"(%151, %191) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %193 = "stablehlo.broadcast_in_dim"(%146) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %194 = "stablehlo.divide"(%172, %193) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %195 = "stablehlo.sqrt"(%194) : (tensor<16xf32>) -> tensor<16xf32>
    %196 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %197 = "stablehlo.add"(%195, %196) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %198 = "stablehlo.divide"(%192, %197) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %199 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %200 = "stablehlo.multiply"(%arg0, %199) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %201 = "stablehlo.add"(%198, %200) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %202 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %203 = "stablehlo.multiply"(%202, %201) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %204 = "stablehlo.subtract"(%arg0, %203) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %205 = "stablehlo.broadcast_in_dim"(%143) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %206 = "stablehlo.divide"(%156, %205) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %207 = "stablehlo.broadcast_in_dim"(%146) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %208 = "stablehlo.divide"(%178, %207) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %209 = "stablehlo.sqrt"(%208) : (tensor<4xf32>) -> tensor<4xf32>
    %210 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %211 = "stablehlo.add"(%209, %210) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %212 = "stablehlo.divide"(%206, %211) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %213 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %214 = "stablehlo.multiply"(%arg1, %213) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %215 = "stablehlo.add"(%212, %214) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %216 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %217 = "stablehlo.multiply"(%216, %215) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %218 = "stablehlo.subtract"(%arg1, %217) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %219 = "stablehlo.broadcast_in_dim"(%143) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %220 = "stablehlo.divide"(%161, %219) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %221 = "stablehlo.broadcast_in_dim"(%146) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %222 = "stablehlo.divide"(%184, %221) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %223 = "stablehlo.sqrt"(%222) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %224 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %225 = "stablehlo.add"(%223, %224) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %226 = "stablehlo.divide"(%220, %225) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %227 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %228 = "stablehlo.multiply"(%arg2, %227) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %229 = "stablehlo.add"(%226, %228) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %230 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %231 = "stablehlo.multiply"(%230, %229) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %232 = "stablehlo.subtract"(%arg2, %231) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %233 = "stablehlo.broadcast_in_dim"(%143) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %234 = "stablehlo.divide"(%166, %233) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %235 = "stablehlo.broadcast_in_dim"(%146) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %236 = "stablehlo.divide"(%190, %235) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %237 = "stablehlo.sqrt"(%236) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %238 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %239 = "stablehlo.add"(%237, %238) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %240 = "stablehlo.divide"(%234, %239) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %241 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %242 = "stablehlo.multiply"(%arg3, %241) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %243 = "stablehlo.add"(%240, %242) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %244 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %245 = "stablehlo.multiply"(%244, %243) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %246 = "stablehlo.subtract"(%arg3, %245) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    func.return %79, %204, %218, %232, %246, %151, %156, %161, %166, %140, %172, %178, %184, %190 : tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>
  }
}
