module @mlp_train_step attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<16xf32> {tf.aliasing_output = 1 : i32}, %arg1: tensor<4xf32> {tf.aliasing_output = 2 : i32}, %arg2: tensor<8x16xf32> {tf.aliasing_output = 3 : i32}, %arg3: tensor<16x4xf32> {tf.aliasing_output = 4 : i32}, %arg4: tensor<16xf32> {tf.aliasing_output = 5 : i32}, %arg5: tensor<4xf32> {tf.aliasing_output = 6 : i32}, %arg6: tensor<8x16xf32> {tf.aliasing_output = 7 : i32}, %arg7: tensor<16x4xf32> {tf.aliasing_output = 8 : i32}, %arg8: tensor<f32> {tf.aliasing_output = 0 : i32}, %arg9: tensor<16xf32> {tf.aliasing_output = 10 : i32}, %arg10: tensor<4xf32> {tf.aliasing_output = 11 : i32}, %arg11: tensor<8x16xf32> {tf.aliasing_output = 12 : i32}, %arg12: tensor<16x4xf32> {tf.aliasing_output = 13 : i32}, %arg13: tensor<16x8xf32>, %arg14: tensor<16xi32>, %arg15: tensor<f32>) -> (tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>) {
    %0 = "stablehlo.constant"() {value = dense<0.5> : tensor<f32>} : () -> tensor<f32>
    %1 = "stablehlo.constant"() {value = dense<0.7071067690849304> : tensor<f32>} : () -> tensor<f32>
    %2 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %3 = "stablehlo.constant"() {value = dense<-100> : tensor<i32>} : () -> tensor<i32>
    %4 = "stablehlo.constant"() {value = dense<0> : tensor<i32>} : () -> tensor<i32>
    %5 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %6 = "stablehlo.constant"() {value = dense<4> : tensor<i32>} : () -> tensor<i32>
    %7 = "stablehlo.constant"() {value = dense<1.0> : tensor<f32>} : () -> tensor<f32>
    %8 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %9 = "stablehlo.constant"() {value = dense<1.128379225730896> : tensor<f32>} : () -> tensor<f32>
    %10 = "stablehlo.constant"() {value = dense<0.8999999761581421> : tensor<f32>} : () -> tensor<f32>
    %11 = "stablehlo.constant"() {value = dense<0.9990000128746033> : tensor<f32>} : () -> tensor<f32>
    %12 = "stablehlo.constant"() {value = dense<0.8999999761581421> : tensor<f32>} : () -> tensor<f32>
    %13 = "stablehlo.constant"() {value = dense<0.10000000149011612> : tensor<f32>} : () -> tensor<f32>
    %14 = "stablehlo.constant"() {value = dense<0.9990000128746033> : tensor<f32>} : () -> tensor<f32>
    %15 = "stablehlo.constant"() {value = dense<0.0010000000474974513> : tensor<f32>} : () -> tensor<f32>
    %16 = "stablehlo.constant"() {value = dense<9.99999993922529e-9> : tensor<f32>} : () -> tensor<f32>
    %17 = "stablehlo.constant"() {value = dense<0.009999999776482582> : tensor<f32>} : () -> tensor<f32>
    %18 = "stablehlo.dot_general"(%arg13, %arg2) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x8xf32>, tensor<8x16xf32>) -> tensor<16x16xf32>
    %19 = "stablehlo.broadcast_in_dim"(%arg0) {broadcast_dimensions = array<i64: 1>} : (tensor<16xf32>) -> tensor<16x16xf32>
    %20 = "stablehlo.add"(%18, %19) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %21 = "stablehlo.broadcast_in_dim"(%0) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %22 = "stablehlo.multiply"(%20, %21) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %23 = "stablehlo.broadcast_in_dim"(%1) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %24 = "stablehlo.multiply"(%20, %23) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %25 = "chlo.erf"(%24) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %26 = "stablehlo.broadcast_in_dim"(%2) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %27 = "stablehlo.add"(%25, %26) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %28 = "stablehlo.multiply"(%22, %27) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %29 = "stablehlo.dot_general"(%28, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x16xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %30 = "stablehlo.broadcast_in_dim"(%arg1) {broadcast_dimensions = array<i64: 1>} : (tensor<4xf32>) -> tensor<16x4xf32>
    %31 = "stablehlo.add"(%29, %30) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %32 = "stablehlo.broadcast_in_dim"(%3) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %33 = "stablehlo.compare"(%arg14, %32) {comparison_direction = #stablehlo<comparison_direction NE>, compare_type = #stablehlo<comparison_type SIGNED>} : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi1>
    %34 = "stablehlo.broadcast_in_dim"(%4) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %35 = "stablehlo.select"(%33, %arg14, %34) : (tensor<16xi1>, tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %36 = "stablehlo.constant"() {value = dense<0xFF800000> : tensor<f32>} : () -> tensor<f32>
    %37 = "stablehlo.reduce"(%31, %36) ({
      ^bb0(%38: tensor<f32>, %39: tensor<f32>):
        %40 = "stablehlo.maximum"(%38, %39) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%40) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %41 = "stablehlo.reshape"(%37) : (tensor<16xf32>) -> tensor<16x1xf32>
    %42 = "stablehlo.is_finite"(%41) : (tensor<16x1xf32>) -> tensor<16x1xi1>
    %43 = "stablehlo.broadcast_in_dim"(%5) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x1xf32>
    %44 = "stablehlo.select"(%42, %41, %43) : (tensor<16x1xi1>, tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
    %45 = "stablehlo.broadcast_in_dim"(%44) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<16x1xf32>) -> tensor<16x4xf32>
    %46 = "stablehlo.subtract"(%31, %45) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %47 = "stablehlo.exponential"(%46) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %48 = "stablehlo.constant"() {value = dense<0.0> : tensor<f32>} : () -> tensor<f32>
    %49 = "stablehlo.reduce"(%47, %48) ({
      ^bb0(%50: tensor<f32>, %51: tensor<f32>):
        %52 = "stablehlo.add"(%50, %51) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%52) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %53 = "stablehlo.reshape"(%49) : (tensor<16xf32>) -> tensor<16x1xf32>
    %54 = "stablehlo.log"(%53) : (tensor<16x1xf32>) -> tensor<16x1xf32>
    %55 = "stablehlo.add"(%54, %44) : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
    %56 = "stablehlo.broadcast_in_dim"(%55) {broadcast_dimensions = array<i64: 0, 1>} : (tensor<16x1xf32>) -> tensor<16x4xf32>
    %57 = "stablehlo.subtract"(%31, %56) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %58 = "stablehlo.convert"(%33) : (tensor<16xi1>) -> tensor<16xf32>
    %59 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<16xi32>
    %60 = "stablehlo.broadcast_in_dim"(%6) {broadcast_dimensions = array<i64>} : (tensor<i32>) -> tensor<16xi32>
    %61 = "stablehlo.multiply"(%59, %60) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %62 = "stablehlo.add"(%61, %35) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %63 = "stablehlo.reshape"(%57) : (tensor<16x4xf32>) -> tensor<64xf32>
    %64 = "stablehlo.gather"(%63, %62) {dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1>, indices_are_sorted = false} : (tensor<64xf32>, tensor<16xi32>) -> tensor<16xf32>
    %65 = "stablehlo.negate"(%64) : (tensor<16xf32>) -> tensor<16xf32>
    %66 = "stablehlo.multiply"(%65, %58) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %67 = "stablehlo.reduce"(%66, %48) ({
      ^bb0(%68: tensor<f32>, %69: tensor<f32>):
        %70 = "stablehlo.add"(%68, %69) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%70) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %71 = "stablehlo.reduce"(%58, %48) ({
      ^bb0(%72: tensor<f32>, %73: tensor<f32>):
        %74 = "stablehlo.add"(%72, %73) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%74) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16xf32>, tensor<f32>) -> tensor<f32>
    %75 = "stablehlo.maximum"(%71, %2) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %76 = "stablehlo.divide"(%67, %75) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %77 = "stablehlo.divide"(%7, %75) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %78 = "stablehlo.broadcast_in_dim"(%77) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %79 = "stablehlo.multiply"(%78, %58) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %80 = "stablehlo.negate"(%79) : (tensor<16xf32>) -> tensor<16xf32>
    %81 = "stablehlo.broadcast_in_dim"(%8) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<64xf32>
    %82 = "stablehlo.constant"() {value = dense<0> : tensor<16xi32>} : () -> tensor<16xi32>
    %83 = "stablehlo.maximum"(%62, %82) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %84 = "stablehlo.constant"() {value = dense<63> : tensor<16xi32>} : () -> tensor<16xi32>
    %85 = "stablehlo.minimum"(%83, %84) : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
    %86 = "stablehlo.scatter"(%81, %85, %80) ({
      ^bb0(%87: tensor<f32>, %88: tensor<f32>):
        %89 = "stablehlo.add"(%87, %88) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%89) : (tensor<f32>) -> ()
    }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : (tensor<64xf32>, tensor<16xi32>, tensor<16xf32>) -> tensor<64xf32>
    %90 = "stablehlo.reshape"(%86) : (tensor<64xf32>) -> tensor<16x4xf32>
    %91 = "stablehlo.negate"(%90) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %92 = "stablehlo.reduce"(%91, %48) ({
      ^bb0(%93: tensor<f32>, %94: tensor<f32>):
        %95 = "stablehlo.add"(%93, %94) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%95) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 1>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<16xf32>
    %96 = "stablehlo.reshape"(%92) : (tensor<16xf32>) -> tensor<16x1xf32>
    %97 = "stablehlo.divide"(%96, %53) : (tensor<16x1xf32>, tensor<16x1xf32>) -> tensor<16x1xf32>
    %98 = "stablehlo.reshape"(%97) : (tensor<16x1xf32>) -> tensor<16xf32>
    %99 = "stablehlo.broadcast_in_dim"(%98) {broadcast_dimensions = array<i64: 0>} : (tensor<16xf32>) -> tensor<16x4xf32>
    %100 = "stablehlo.multiply"(%99, %47) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %101 = "stablehlo.add"(%90, %100) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %102 = "stablehlo.reduce"(%101, %48) ({
      ^bb0(%103: tensor<f32>, %104: tensor<f32>):
        %105 = "stablehlo.add"(%103, %104) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%105) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16x4xf32>, tensor<f32>) -> tensor<4xf32>
    %106 = "stablehlo.dot_general"(%101, %arg3) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], rhs_contracting_dimensions = [1]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x16xf32>
    %107 = "stablehlo.dot_general"(%101, %28) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x4xf32>, tensor<16x16xf32>) -> tensor<4x16xf32>
    %108 = "stablehlo.transpose"(%107) {permutation = array<i64: 1, 0>} : (tensor<4x16xf32>) -> tensor<16x4xf32>
    %109 = "stablehlo.multiply"(%106, %27) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %110 = "stablehlo.multiply"(%106, %22) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %111 = "stablehlo.multiply"(%24, %24) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %112 = "stablehlo.negate"(%111) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %113 = "stablehlo.exponential"(%112) : (tensor<16x16xf32>) -> tensor<16x16xf32>
    %114 = "stablehlo.broadcast_in_dim"(%9) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x16xf32>
    %115 = "stablehlo.multiply"(%113, %114) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %116 = "stablehlo.multiply"(%110, %115) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %117 = "stablehlo.multiply"(%116, %23) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %118 = "stablehlo.multiply"(%109, %21) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %119 = "stablehlo.add"(%117, %118) : (tensor<16x16xf32>, tensor<16x16xf32>) -> tensor<16x16xf32>
    %120 = "stablehlo.reduce"(%119, %48) ({
      ^bb0(%121: tensor<f32>, %122: tensor<f32>):
        %123 = "stablehlo.add"(%121, %122) : (tensor<f32>, tensor<f32>) -> tensor<f32>
        "stablehlo.return"(%123) : (tensor<f32>) -> ()
    }) {dimensions = array<i64: 0>} : (tensor<16x16xf32>, tensor<f32>) -> tensor<16xf32>
    %124 = "stablehlo.dot_general"(%119, %arg13) {dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], rhs_contracting_dimensions = [0]>, precision_config = [#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]} : (tensor<16x16xf32>, tensor<16x8xf32>) -> tensor<16x8xf32>
    %125 = "stablehlo.transpose"(%124) {permutation = array<i64: 1, 0>} : (tensor<16x8xf32>) -> tensor<8x16xf32>
    %126 = "stablehlo.add"(%arg8, %7) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %127 = "stablehlo.broadcast_in_dim"(%10) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>
    %128 = "stablehlo.power"(%127, %126) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %129 = "stablehlo.subtract"(%7, %128) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %130 = "stablehlo.broadcast_in_dim"(%11) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<f32>
    %131 = "stablehlo.power"(%130, %126) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %132 = "stablehlo.subtract"(%7, %131) : (tensor<f32>, tensor<f32>) -> tensor<f32>
    %133 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %134 = "stablehlo.multiply"(%arg4, %133) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %135 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %136 = "stablehlo.multiply"(%120, %135) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %137 = "stablehlo.add"(%134, %136) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %138 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %139 = "stablehlo.multiply"(%arg5, %138) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %140 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %141 = "stablehlo.multiply"(%102, %140) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %142 = "stablehlo.add"(%139, %141) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %143 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %144 = "stablehlo.multiply"(%arg6, %143) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %145 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %146 = "stablehlo.multiply"(%125, %145) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %147 = "stablehlo.add"(%144, %146) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %148 = "stablehlo.broadcast_in_dim"(%12) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %149 = "stablehlo.multiply"(%arg7, %148) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %150 = "stablehlo.broadcast_in_dim"(%13) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %151 = "stablehlo.multiply"(%108, %150) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %152 = "stablehlo.add"(%149, %151) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %153 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %154 = "stablehlo.multiply"(%arg9, %153) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %155 = "stablehlo.multiply"(%120, %120) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %156 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %157 = "stablehlo.multiply"(%155, %156) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %158 = "stablehlo.add"(%154, %157) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %159 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %160 = "stablehlo.multiply"(%arg10, %159) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %161 = "stablehlo.multiply"(%102, %102) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %162 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %163 = "stablehlo.multiply"(%161, %162) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %164 = "stablehlo.add"(%160, %163) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %165 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %166 = "stablehlo.multiply"(%arg11, %165) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %167 = "stablehlo.multiply"(%125, %125) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %168 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %169 = "stablehlo.multiply"(%167, %168) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %170 = "stablehlo.add"(%166, %169) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %171 = "stablehlo.broadcast_in_dim"(%14) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %172 = "stablehlo.multiply"(%arg12, %171) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %173 = "stablehlo.multiply"(%108, %108) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %174 = "stablehlo.broadcast_in_dim"(%15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %175 = "stablehlo.multiply"(%173, %174) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %176 = "stablehlo.add"(%172, %175) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %177 = "stablehlo.broadcast_in_dim"(%129) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %178 = "stablehlo.divide"(%137, %177) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %179 = "stablehlo.broadcast_in_dim"(%132) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %180 = "stablehlo.divide"(%158, %179) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %181 = "stablehlo.sqrt"(%180) : (tensor<16xf32>) -> tensor<16xf32>
    %182 = "stablehlo.broadcast_in_dim"(%16) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %183 = "stablehlo.add"(%181, %182) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %184 = "stablehlo.divide"(%178, %183) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %185 = "stablehlo.broadcast_in_dim"(%17) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %186 = "stablehlo.multiply"(%arg0, %185) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %187 = "stablehlo.add"(%184, %186) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %188 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16xf32>
    %189 = "stablehlo.multiply"(%188, %187) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %190 = "stablehlo.subtract"(%arg0, %189) : (tensor<16xf32>, tensor<16xf32>) -> tensor<16xf32>
    %191 = "stablehlo.broadcast_in_dim"(%129) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %192 = "stablehlo.divide"(%142, %191) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %193 = "stablehlo.broadcast_in_dim"(%132) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %194 = "stablehlo.divide"(%164, %193) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %195 = "stablehlo.sqrt"(%194) : (tensor<4xf32>) -> tensor<4xf32>
    %196 = "stablehlo.broadcast_in_dim"(%16) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %197 = "stablehlo.add"(%195, %196) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %198 = "stablehlo.divide"(%192, %197) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %199 = "stablehlo.broadcast_in_dim"(%17) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %200 = "stablehlo.multiply"(%arg1, %199) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %201 = "stablehlo.add"(%198, %200) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %202 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<4xf32>
    %203 = "stablehlo.multiply"(%202, %201) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %204 = "stablehlo.subtract"(%arg1, %203) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    %205 = "stablehlo.broadcast_in_dim"(%129) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %206 = "stablehlo.divide"(%147, %205) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %207 = "stablehlo.broadcast_in_dim"(%132) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %208 = "stablehlo.divide"(%170, %207) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %209 = "stablehlo.sqrt"(%208) : (tensor<8x16xf32>) -> tensor<8x16xf32>
    %210 = "stablehlo.broadcast_in_dim"(%16) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %211 = "stablehlo.add"(%209, %210) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %212 = "stablehlo.divide"(%206, %211) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %213 = "stablehlo.broadcast_in_dim"(%17) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %214 = "stablehlo.multiply"(%arg2, %213) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %215 = "stablehlo.add"(%212, %214) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %216 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<8x16xf32>
    %217 = "stablehlo.multiply"(%216, %215) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %218 = "stablehlo.subtract"(%arg2, %217) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
    %219 = "stablehlo.broadcast_in_dim"(%129) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %220 = "stablehlo.divide"(%152, %219) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %221 = "stablehlo.broadcast_in_dim"(%132) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %222 = "stablehlo.divide"(%176, %221) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %223 = "stablehlo.sqrt"(%222) : (tensor<16x4xf32>) -> tensor<16x4xf32>
    %224 = "stablehlo.broadcast_in_dim"(%16) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %225 = "stablehlo.add"(%223, %224) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %226 = "stablehlo.divide"(%220, %225) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %227 = "stablehlo.broadcast_in_dim"(%17) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %228 = "stablehlo.multiply"(%arg3, %227) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %229 = "stablehlo.add"(%226, %228) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %230 = "stablehlo.broadcast_in_dim"(%arg15) {broadcast_dimensions = array<i64>} : (tensor<f32>) -> tensor<16x4xf32>
    %231 = "stablehlo.multiply"(%230, %229) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    %232 = "stablehlo.subtract"(%arg3, %231) : (tensor<16x4xf32>, tensor<16x4xf32>) -> tensor<16x4xf32>
    func.return %76, %190, %204, %218, %232, %137, %142, %147, %152, %126, %158, %164, %170, %176 : tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>, tensor<f32>, tensor<16xf32>, tensor<4xf32>, tensor<8x16xf32>, tensor<16x4xf32>
  }
}
